; codeatlas tags for Go: functions, methods, types, calls, imports.
(function_declaration
  name: (identifier) @name.definition.function) @definition.function

(method_declaration
  name: (field_identifier) @name.definition.method) @definition.method

(type_spec
  name: (type_identifier) @name.definition.struct
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name.definition.interface
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name.definition.type
  type: [(type_identifier) (qualified_type) (function_type) (map_type) (slice_type)
         (pointer_type) (array_type) (channel_type) (generic_type)]) @definition.type

(call_expression
  function: [
    (identifier) @name.reference.call
    (selector_expression field: (field_identifier) @name.reference.call)
  ]) @reference.call

(import_spec
  path: (interpreted_string_literal (interpreted_string_literal_content) @name.reference.import)) @reference.import
