; codeatlas tags for C#: types, methods, constructors, operators, properties, calls, usings, bases.
(class_declaration
  name: (identifier) @name.definition.class) @definition.class

(record_declaration
  name: (identifier) @name.definition.class) @definition.class

(struct_declaration
  name: (identifier) @name.definition.struct) @definition.struct

(interface_declaration
  name: (identifier) @name.definition.interface) @definition.interface

(enum_declaration
  name: (identifier) @name.definition.enum) @definition.enum

(method_declaration
  name: (identifier) @name.definition.method) @definition.method

(constructor_declaration
  name: (identifier) @name.definition.constructor) @definition.constructor

(destructor_declaration
  name: (identifier) @name.definition.method) @definition.method

(operator_declaration
  operator: _ @name.definition.method) @definition.method

(conversion_operator_declaration
  type: _ @name.definition.method) @definition.method

; properties and indexers whose accessors hold code (auto-properties are fields)
(property_declaration
  name: (identifier) @name.definition.property
  accessors: (accessor_list (accessor_declaration body: (_)))) @definition.property

(property_declaration
  name: (identifier) @name.definition.property
  value: (arrow_expression_clause)) @definition.property

(indexer_declaration
  accessors: (accessor_list (accessor_declaration body: (_)))) @definition.property

(indexer_declaration
  value: (arrow_expression_clause)) @definition.property

(local_function_statement
  name: (identifier) @name.definition.function) @definition.function

(invocation_expression
  function: [
    (identifier) @name.reference.call
    (generic_name (identifier) @name.reference.call)
    (member_access_expression name: [
      (identifier) @name.reference.call
      (generic_name (identifier) @name.reference.call)
    ])
    (conditional_access_expression (member_binding_expression name: [
      (identifier) @name.reference.call
      (generic_name (identifier) @name.reference.call)
    ]) .)
  ]) @reference.call

(object_creation_expression
  type: [
    (identifier) @name.reference.call
    (generic_name (identifier) @name.reference.call)
    (qualified_name name: (identifier) @name.reference.call)
  ]) @reference.call

(using_directive
  [(identifier) (qualified_name)] @name.reference.import) @reference.import

(base_list [
  (identifier) @name.reference.extends
  (generic_name (identifier) @name.reference.extends)
  (qualified_name name: (identifier) @name.reference.extends)
])
