; codeatlas tags for C#: types, methods, constructors, properties' owners, calls, usings, bases.
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

(operator_declaration) @definition.method

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
