; codeatlas tags for Rust: items, impl blocks, trait methods, calls, use declarations.
(function_item
  name: (identifier) @name.definition.function) @definition.function

(function_signature_item
  name: (identifier) @name.definition.function) @definition.function

(struct_item
  name: (type_identifier) @name.definition.struct) @definition.struct

(enum_item
  name: (type_identifier) @name.definition.enum) @definition.enum

(union_item
  name: (type_identifier) @name.definition.struct) @definition.struct

(trait_item
  name: (type_identifier) @name.definition.trait) @definition.trait

(impl_item
  type: [
    (type_identifier) @name.definition.impl
    (generic_type type: (type_identifier) @name.definition.impl)
    (scoped_type_identifier name: (type_identifier) @name.definition.impl)
    (reference_type (type_identifier) @name.definition.impl)
  ]) @definition.impl

(mod_item
  name: (identifier) @name.definition.module
  body: (declaration_list)) @definition.module

(macro_definition
  name: (identifier) @name.definition.macro) @definition.macro

(type_item
  name: (type_identifier) @name.definition.type) @definition.type

(call_expression
  function: [
    (identifier) @name.reference.call
    (field_expression field: (field_identifier) @name.reference.call)
    (scoped_identifier name: (identifier) @name.reference.call)
    (generic_function function: [
      (identifier) @name.reference.call
      (field_expression field: (field_identifier) @name.reference.call)
      (scoped_identifier name: (identifier) @name.reference.call)
    ])
  ]) @reference.call

(macro_invocation
  macro: (identifier) @name.reference.call) @reference.call

; the arguments of a macro are token trees, not expressions (`ok!(self.react(x))`,
; `tri!(parse_escape(r))`): a name right before a parenthesised token tree is a call there
(token_tree
  (identifier) @name.reference.call
  .
  (token_tree) @reference.call)

(use_declaration
  argument: [(identifier) (scoped_identifier)] @name.reference.import) @reference.import

(use_declaration
  argument: (use_as_clause path: (_) @name.reference.import)) @reference.import

(use_declaration
  argument: (scoped_use_list
    path: (_) @qualifier.reference.import
    list: (use_list [
      (identifier) @name.reference.import
      (scoped_identifier) @name.reference.import
      (use_as_clause path: (_) @name.reference.import)
    ]))) @reference.import

(impl_item
  trait: [
    (type_identifier) @name.reference.implements
    (scoped_type_identifier name: (type_identifier) @name.reference.implements)
    (generic_type type: (type_identifier) @name.reference.implements)
  ])
