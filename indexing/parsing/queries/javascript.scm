; codeatlas tags for JavaScript: functions, classes, methods, calls, imports, extends.
(function_declaration
  name: (identifier) @name.definition.function) @definition.function

(generator_function_declaration
  name: (identifier) @name.definition.function) @definition.function

(class_declaration
  name: (identifier) @name.definition.class) @definition.class

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name.definition.method) @definition.method

(lexical_declaration
  (variable_declarator
    name: (identifier) @name.definition.function
    value: [(arrow_function) (function_expression)])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name.definition.function
    value: [(arrow_function) (function_expression)])) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name.definition.class
    value: (class))) @definition.class

(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name.definition.function)
    right: [(arrow_function) (function_expression)])) @definition.function

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name.definition.function
  value: [(arrow_function) (function_expression)]) @definition.function

(call_expression
  function: [
    (identifier) @name.reference.call
    (member_expression property: [(property_identifier) (private_property_identifier)] @name.reference.call)
  ]) @reference.call

(new_expression
  constructor: [
    (identifier) @name.reference.call
    (member_expression property: (property_identifier) @name.reference.call)
  ]) @reference.call

(import_statement
  (import_clause (named_imports (import_specifier name: (identifier) @name.reference.import)))
  source: (string (string_fragment) @qualifier.reference.import)) @reference.import

(import_statement
  (import_clause (identifier) @name.reference.import)
  source: (string (string_fragment) @qualifier.reference.import)) @reference.import

(import_statement
  (import_clause (namespace_import (identifier) @name.reference.import))
  source: (string (string_fragment) @qualifier.reference.import)) @reference.import

(variable_declarator
  name: (identifier) @name.reference.import
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @qualifier.reference.import)))) @reference.import

(variable_declarator
  name: (object_pattern [
    (shorthand_property_identifier_pattern) @name.reference.import
    (pair_pattern key: (property_identifier) @name.reference.import)
  ])
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @qualifier.reference.import)))) @reference.import

(call_expression
  function: (identifier) @_require (#eq? @_require "require")
  arguments: (arguments . (string (string_fragment) @name.reference.import))) @reference.import

(class_heritage [
  (identifier) @name.reference.extends
  (member_expression property: (property_identifier) @name.reference.extends)
])
