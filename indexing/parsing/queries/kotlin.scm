; codeatlas tags for Kotlin: classes, objects, functions, typealiases, calls, imports, supertypes.
(class_declaration
  (type_identifier) @name.definition.class) @definition.class

(object_declaration
  (type_identifier) @name.definition.class) @definition.class

(companion_object
  (type_identifier)? @name.definition.class) @definition.class

(function_declaration
  (simple_identifier) @name.definition.function) @definition.function

(secondary_constructor) @definition.constructor

(type_alias
  (type_identifier) @name.definition.type) @definition.type

(call_expression
  [
    (simple_identifier) @name.reference.call
    (navigation_expression (navigation_suffix (simple_identifier) @name.reference.call))
  ]) @reference.call

; `a shl 2`, `x to y`: the function between the operands (the left one is its receiver)
(infix_expression
  .
  (_)
  .
  (simple_identifier) @name.reference.call) @reference.call

(import_header
  (identifier) @name.reference.import) @reference.import

; the supertype's last name, with or without type arguments (`Base<T>()`, `p.Sink<T>`); an
; interface delegated `by` an object is implemented too
(delegation_specifier [
  (constructor_invocation (user_type (type_identifier) @name.reference.extends .))
  (constructor_invocation
    (user_type (type_identifier) @name.reference.extends . (type_arguments) .))
  (user_type (type_identifier) @name.reference.implements .)
  (user_type (type_identifier) @name.reference.implements . (type_arguments) .)
  (explicit_delegation (user_type (type_identifier) @name.reference.implements .))
  (explicit_delegation
    (user_type (type_identifier) @name.reference.implements . (type_arguments) .))
])
