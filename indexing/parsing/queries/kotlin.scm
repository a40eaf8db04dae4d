; codeatlas tags for Kotlin: classes, objects, functions, calls, imports, supertypes.
(class_declaration
  (type_identifier) @name.definition.class) @definition.class

(object_declaration
  (type_identifier) @name.definition.class) @definition.class

(companion_object
  (type_identifier)? @name.definition.class) @definition.class

(function_declaration
  (simple_identifier) @name.definition.function) @definition.function

(secondary_constructor) @definition.constructor

(call_expression
  [
    (simple_identifier) @name.reference.call
    (navigation_expression (navigation_suffix (simple_identifier) @name.reference.call))
  ]) @reference.call

(import_header
  (identifier) @name.reference.import) @reference.import

(delegation_specifier [
  (constructor_invocation (user_type (type_identifier) @name.reference.extends .))
  (user_type (type_identifier) @name.reference.implements .)
])
