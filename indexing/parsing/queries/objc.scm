; codeatlas tags for Objective-C (and the Objective-C side of .mm files): classes, categories,
; protocols, methods named by their selector's first keyword (`doThing` for
; `- (void)doThing:(int)x with:(int)y`, as a message send `[obj doThing:1 with:2]` and Swift's
; `obj.doThing(1, with: 2)` name it), message sends, imports; its C (functions, prototypes,
; macros, structs, enums, typedefs, calls, includes) is read by c.scm, which comes first.
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

; `[obj doThing:1 with:2]`: the selector's first keyword (the receiver is its `receiver`)
(message_expression
  receiver: (_)
  .
  method: (identifier) @name.reference.call) @reference.call

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
