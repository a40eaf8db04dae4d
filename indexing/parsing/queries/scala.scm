; codeatlas tags for Scala: classes, objects, traits, enums, defs, calls, imports, parents.
(class_definition
  name: (identifier) @name.definition.class) @definition.class

; a companion object is named like its class: its members are `Cart.empty`, as Scala calls them
(object_definition
  name: (identifier) @name.definition.object) @definition.object

(package_object
  name: (identifier) @name.definition.object) @definition.object

(given_definition
  name: (identifier) @name.definition.object
  body: (_)) @definition.object

(trait_definition
  name: (identifier) @name.definition.trait) @definition.trait

(enum_definition
  name: (identifier) @name.definition.enum) @definition.enum

(function_definition
  name: (identifier) @name.definition.function) @definition.function

; an abstract `def` of a trait or class
(function_declaration
  name: (identifier) @name.definition.function) @definition.function

; `val parse = (s: String) => ...`
(val_definition
  pattern: (identifier) @name.definition.function
  value: (lambda_expression)) @definition.function

(var_definition
  pattern: (identifier) @name.definition.function
  value: (lambda_expression)) @definition.function

(type_definition
  name: (type_identifier) @name.definition.type) @definition.type

(call_expression
  function: [
    ((identifier) @name.reference.call (#not-eq? @name.reference.call "this"))
    (field_expression field: (identifier) @name.reference.call)
    (generic_function function: [
      (identifier) @name.reference.call
      (field_expression field: (identifier) @name.reference.call)
    ])
  ]) @reference.call

; `xs.head`, `Cart.empty`: a method without parameters is called without parentheses
(field_expression
  field: (identifier) @name.reference.call) @reference.call

; `new Cart(items)`
(instance_expression
  [
    (type_identifier) @name.reference.call
    (generic_type type: (type_identifier) @name.reference.call)
    (stable_type_identifier (type_identifier) @name.reference.call .)
    (generic_type type: (stable_type_identifier (type_identifier) @name.reference.call .))
  ]) @reference.call

; `a max b`, `xs foreach f`: the method between the operands (the left one is its receiver)
(infix_expression
  operator: (identifier) @name.reference.call) @reference.call

; the path in front of the name is its qualifier (edges.py); `import a.b._` imports `b`. The
; grammar gives several children the same field (`path`, `type`): a field in a pattern would
; only ever match the first of them
(import_declaration
  (identifier) @name.reference.import .) @reference.import

(import_declaration
  (identifier) @name.reference.import . (namespace_wildcard)) @reference.import

(import_declaration
  (namespace_selectors [
    (identifier) @name.reference.import
    (arrow_renamed_identifier name: (identifier) @name.reference.import)
    (as_renamed_identifier name: (identifier) @name.reference.import)
  ])) @reference.import

(import_declaration
  (as_renamed_identifier name: (identifier) @name.reference.import)) @reference.import

; every parent: the class and the traits mixed in `with` are inherited from alike
(extends_clause
  [
    (type_identifier) @name.reference.extends
    (generic_type type: (type_identifier) @name.reference.extends)
    (stable_type_identifier (type_identifier) @name.reference.extends .)
    (generic_type type: (stable_type_identifier (type_identifier) @name.reference.extends .))
  ])
