; codeatlas tags for PHP: classes, interfaces, traits, enums, functions, methods, calls, uses.
(class_declaration
  name: (name) @name.definition.class) @definition.class

(interface_declaration
  name: (name) @name.definition.interface) @definition.interface

(trait_declaration
  name: (name) @name.definition.trait) @definition.trait

(enum_declaration
  name: (name) @name.definition.enum) @definition.enum

(function_definition
  name: (name) @name.definition.function) @definition.function

(method_declaration
  name: (name) @name.definition.method) @definition.method

(function_call_expression
  function: [
    (name) @name.reference.call
    (qualified_name (name) @name.reference.call .)
  ]) @reference.call

(member_call_expression
  name: (name) @name.reference.call) @reference.call

(nullsafe_member_call_expression
  name: (name) @name.reference.call) @reference.call

(scoped_call_expression
  name: (name) @name.reference.call) @reference.call

(object_creation_expression
  [
    (name) @name.reference.call
    (qualified_name (name) @name.reference.call .)
  ]) @reference.call

(namespace_use_clause
  .
  [(name) (qualified_name)] @name.reference.import) @reference.import

(base_clause [
  (name) @name.reference.extends
  (qualified_name (name) @name.reference.extends .)
])

(class_interface_clause [
  (name) @name.reference.implements
  (qualified_name (name) @name.reference.implements .)
])

(use_declaration [
  (name) @name.reference.implements
  (qualified_name (name) @name.reference.implements .)
])
