; codeatlas tags for C: functions, prototypes, structs, unions, enums, typedefs, calls, includes.
(function_definition
  declarator: (function_declarator
    declarator: (identifier) @name.definition.function)) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (identifier) @name.definition.function))) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator
        declarator: (identifier) @name.definition.function)))) @definition.function

; a prototype declares a function defined elsewhere (a header's, a forward declaration)
(declaration
  declarator: (function_declarator
    declarator: (identifier) @name.definition.prototype)) @definition.prototype

(declaration
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (identifier) @name.definition.prototype))) @definition.prototype

(struct_specifier
  name: (type_identifier) @name.definition.struct
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: (type_identifier) @name.definition.struct
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: (type_identifier) @name.definition.enum
  body: (enumerator_list)) @definition.enum

(type_definition
  declarator: (type_identifier) @name.definition.type) @definition.type

(call_expression
  function: [
    (identifier) @name.reference.call
    (field_expression field: (field_identifier) @name.reference.call)
  ]) @reference.call

(preproc_include
  path: [(string_literal (string_content) @name.reference.import) (system_lib_string) @name.reference.import]) @reference.import

; a function-like macro (`#define MAX(a, b) ...`), called as a function is
(preproc_function_def
  name: (identifier) @name.definition.macro) @definition.macro
