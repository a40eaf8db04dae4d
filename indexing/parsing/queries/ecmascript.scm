; codeatlas tags shared by JavaScript and TypeScript (read before each language's own file):
; functions held by a variable through a call, anonymous default exports, object-literal
; members whose value is a function.
; a function wrapped by a call (`const Row = memo(function () {...})`, `forwardRef((p, r) => ...)`,
; `create<S>()((set) => ...)`), directly or inside one more call (`memo(forwardRef(...))`)
(lexical_declaration
  (variable_declarator
    name: (identifier) @name.definition.function
    value: (call_expression
      arguments: (arguments [(arrow_function) (function_expression)])))) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name.definition.function
    value: (call_expression
      arguments: (arguments
        (call_expression
          arguments: (arguments [(arrow_function) (function_expression)])))))) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name.definition.function
    value: (call_expression
      arguments: (arguments [(arrow_function) (function_expression)])))) @definition.function

; an anonymous default export (`export default () => <App />`) is named `default`
(export_statement
  "default" @name.definition.function
  value: [(arrow_function) (function_expression)]) @definition.function

(pair
  key: (property_identifier) @name.definition.function
  value: [(arrow_function) (function_expression)]) @definition.function
