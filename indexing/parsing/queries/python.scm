; codeatlas tags for Python: definitions, calls, imports, base classes.
(class_definition
  name: (identifier) @name.definition.class) @definition.class

(function_definition
  name: (identifier) @name.definition.function) @definition.function

(call
  function: [
    (identifier) @name.reference.call
    (attribute attribute: (identifier) @name.reference.call)
  ]) @reference.call

(import_statement
  name: [
    (dotted_name) @name.reference.import
    (aliased_import name: (dotted_name) @name.reference.import)
  ]) @reference.import

(import_from_statement
  module_name: (_) @qualifier.reference.import
  name: [
    (dotted_name) @name.reference.import
    (aliased_import name: (dotted_name) @name.reference.import)
  ]) @reference.import

(class_definition
  superclasses: (argument_list [
    (identifier) @name.reference.extends
    (attribute attribute: (identifier) @name.reference.extends)
  ]))
