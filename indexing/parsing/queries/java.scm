; codeatlas tags for Java: types, methods, constructors, calls, imports, heritage.
(class_declaration
  name: (identifier) @name.definition.class) @definition.class

(record_declaration
  name: (identifier) @name.definition.class) @definition.class

(interface_declaration
  name: (identifier) @name.definition.interface) @definition.interface

(annotation_type_declaration
  name: (identifier) @name.definition.interface) @definition.interface

(enum_declaration
  name: (identifier) @name.definition.enum) @definition.enum

(method_declaration
  name: (identifier) @name.definition.method) @definition.method

(constructor_declaration
  name: (identifier) @name.definition.constructor) @definition.constructor

(method_invocation
  name: (identifier) @name.reference.call) @reference.call

(object_creation_expression
  type: [
    (type_identifier) @name.reference.call
    (generic_type (type_identifier) @name.reference.call)
    (scoped_type_identifier (type_identifier) @name.reference.call .)
  ]) @reference.call

(import_declaration
  [(scoped_identifier) (identifier)] @name.reference.import) @reference.import

(superclass [
  (type_identifier) @name.reference.extends
  (generic_type (type_identifier) @name.reference.extends)
  (scoped_type_identifier (type_identifier) @name.reference.extends .)
])

(super_interfaces (type_list [
  (type_identifier) @name.reference.implements
  (generic_type (type_identifier) @name.reference.implements)
  (scoped_type_identifier (type_identifier) @name.reference.implements .)
]))

(extends_interfaces (type_list [
  (type_identifier) @name.reference.extends
  (generic_type (type_identifier) @name.reference.extends)
]))
