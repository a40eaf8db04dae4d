; codeatlas tags for Swift: classes, structs, enums, actors, protocols, extensions, functions,
; initializers, computed properties, calls, imports, inheritance and conformances.
(class_declaration
  declaration_kind: ["class" "actor"]
  name: (type_identifier) @name.definition.class) @definition.class

(class_declaration
  declaration_kind: "struct"
  name: (type_identifier) @name.definition.struct) @definition.struct

(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name.definition.enum) @definition.enum

; `extension Foo.Bar: P { func baz() }`: its members are named by the extended type
; (`Foo.Bar.baz`), as they are called
(class_declaration
  declaration_kind: "extension"
  name: (user_type) @name.definition.extension) @definition.extension

(protocol_declaration
  name: (type_identifier) @name.definition.interface) @definition.interface

(function_declaration
  name: (simple_identifier) @name.definition.function) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name.definition.method) @definition.method

(init_declaration
  name: "init" @name.definition.constructor) @definition.constructor

(deinit_declaration
  "deinit" @name.definition.method) @definition.method

(subscript_declaration
  "subscript" @name.definition.method) @definition.method

; a property with code: computed (`var total: Int { ... }`) or observed (`didSet`)
(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @name.definition.property)
  computed_value: (computed_property)) @definition.property

(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @name.definition.property)
  (willset_didset_block)) @definition.property

(typealias_declaration
  name: (type_identifier) @name.definition.type) @definition.type

; `f(x)`, `obj.f(x: 1)`, `self.items.append(x)`, `queue.async { }`; not a subscript (`items[i]`)
(call_expression
  [
    (simple_identifier) @name.reference.call
    (navigation_expression
      suffix: (navigation_suffix suffix: (simple_identifier) @name.reference.call))
  ]
  (call_suffix [(value_arguments "(") (lambda_literal)])) @reference.call

; `Foo<Int>(1)`, `Set<String>()`
(constructor_expression
  constructed_type: [
    (user_type (type_identifier) @name.reference.call .)
    (user_type (type_identifier) @name.reference.call . (type_arguments) .)
  ]) @reference.call

(import_declaration
  (identifier) @name.reference.import) @reference.import

; Swift does not tell a superclass from a protocol: every inherited type is a base, as in C#
(inheritance_specifier
  inherits_from: (user_type (type_identifier) @name.reference.extends .))

(inheritance_specifier
  inherits_from: (user_type (type_identifier) @name.reference.extends . (type_arguments) .))
