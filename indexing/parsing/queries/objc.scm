; codeatlas tags for Objective-C (and the Objective-C side of .mm files): classes, categories,
; protocols, methods named by their selector's first keyword (`doThing` for
; `- (void)doThing:(int)x with:(int)y`, as a message send `[obj doThing:1 with:2]` and Swift's
; `obj.doThing(1, with: 2)` name it), C functions, structs, enums, typedefs, calls, imports.
; `@interface Foo (Cat)`, `@interface Foo ()` and `@implementation Foo (Cat)` are extensions
; (symbols.py tells them by their parentheses); their methods are named by the class.
(class_interface
  "@interface"
  .
  (identifier) @name.definition.class) @definition.class

(class_implementation
  "@implementation"
  .
  (identifier) @name.definition.class) @definition.class

(protocol_declaration
  "@protocol"
  .
  (identifier) @name.definition.interface) @definition.interface

(method_definition
  [(method_type) "-" "+"]
  .
  (identifier) @name.definition.method) @definition.method

(method_declaration
  [(method_type) "-" "+"]
  .
  (identifier) @name.definition.method) @definition.method

(function_definition
  declarator: (function_declarator
    declarator: (identifier) @name.definition.function)) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (identifier) @name.definition.function))) @definition.function

(declaration
  declarator: (function_declarator
    declarator: (identifier) @name.definition.function)) @definition.function

(declaration
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (identifier) @name.definition.function))) @definition.function

(struct_specifier
  name: (type_identifier) @name.definition.struct
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: (type_identifier) @name.definition.enum
  body: (enumerator_list)) @definition.enum

(type_definition
  declarator: (type_identifier) @name.definition.type) @definition.type

; `[obj doThing:1 with:2]`: the selector's first keyword (the receiver is its `receiver`)
(message_expression
  receiver: (_)
  .
  method: (identifier) @name.reference.call) @reference.call

(call_expression
  function: [
    (identifier) @name.reference.call
    (field_expression field: (field_identifier) @name.reference.call)
  ]) @reference.call

(preproc_include
  path: [(string_literal (string_content) @name.reference.import) (system_lib_string) @name.reference.import]) @reference.import

(module_import
  path: (_) @name.reference.import) @reference.import

(class_interface
  superclass: (identifier) @name.reference.extends)

(protocol_declaration
  (protocol_reference_list (identifier) @name.reference.extends))

; the protocols a class adopts (`: UIView <P, Q>`), a category or a class extension too
(class_interface
  superclass: (_)
  .
  (parameterized_arguments (type_name (type_identifier) @name.reference.implements)))

(class_interface
  ")"
  .
  (parameterized_arguments (type_name (type_identifier) @name.reference.implements)))
