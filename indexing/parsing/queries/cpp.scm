; codeatlas tags for C++: classes, structs, functions and methods (in and out of class), calls.
(class_specifier
  name: [(type_identifier) (qualified_identifier) (template_type)] @name.definition.class
  body: (field_declaration_list)) @definition.class

(struct_specifier
  name: [(type_identifier) (qualified_identifier) (template_type)] @name.definition.struct
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: (type_identifier) @name.definition.struct
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: (type_identifier) @name.definition.enum
  body: (enumerator_list)) @definition.enum

(function_definition
  declarator: (function_declarator
    declarator: (_) @name.definition.function)) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (_) @name.definition.function))) @definition.function

(function_definition
  declarator: (reference_declarator
    (function_declarator
      declarator: (_) @name.definition.function))) @definition.function

; a prototype declares a function defined elsewhere (a header's, a forward declaration)
(declaration
  declarator: (function_declarator
    declarator: [(identifier) (qualified_identifier)] @name.definition.prototype)) @definition.prototype

(field_declaration
  declarator: (function_declarator
    declarator: (_) @name.definition.method)) @definition.method

(declaration
  declarator: (function_declarator
    declarator: (destructor_name) @name.definition.method)) @definition.method

(type_definition
  declarator: (type_identifier) @name.definition.type) @definition.type

(alias_declaration
  name: (type_identifier) @name.definition.type) @definition.type

(call_expression
  function: [
    (identifier) @name.reference.call
    (field_expression field: (field_identifier) @name.reference.call)
    (qualified_identifier name: (identifier) @name.reference.call)
    (template_function name: (identifier) @name.reference.call)
    (qualified_identifier name: (template_function name: (identifier) @name.reference.call))
    (field_expression field: (template_method name: (field_identifier) @name.reference.call))
  ]) @reference.call

(new_expression
  type: [(type_identifier) @name.reference.call (qualified_identifier name: (type_identifier) @name.reference.call)]) @reference.call

(preproc_include
  path: [(string_literal (string_content) @name.reference.import) (system_lib_string) @name.reference.import]) @reference.import

(base_class_clause [
  (type_identifier) @name.reference.extends
  (qualified_identifier name: (type_identifier) @name.reference.extends)
  (template_type name: (type_identifier) @name.reference.extends)
])

; a function-like macro (`#define MAX(a, b) ...`), called as a function is
(preproc_function_def
  name: (identifier) @name.definition.macro) @definition.macro
