; codeatlas tags for Lua: functions, module tables and their functions, calls, requires.
; `function f()`, `local function f()`
(function_declaration
  name: (identifier) @name.definition.function) @definition.function

; `function M.f()`, `function M:f()` (named `M.f`): a field of a table, called through it
(function_declaration
  name: [(dot_index_expression) (method_index_expression)] @name.definition.method) @definition.method

; `local f = function() end`, `f = function() end`
(variable_declaration
  (assignment_statement
    (variable_list . name: (identifier) @name.definition.function .)
    (expression_list . value: (function_definition) .))) @definition.function

(chunk
  (assignment_statement
    (variable_list . name: (identifier) @name.definition.function .)
    (expression_list . value: (function_definition) .)) @definition.function)

; `M.f = function() end`
(assignment_statement
  (variable_list . name: (dot_index_expression) @name.definition.method .)
  (expression_list . value: (function_definition) .)) @definition.method

; `local M = {}` at the top of a module that returns it (symbols.py keeps only those)
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name.definition.module .)
      (expression_list . value: (table_constructor) .))) @definition.module)

; `M = { new = function() end }`: a method of the table (named by it: symbols.py); the tables
; passed to a call (`parser:option "-f" { action = function() end }`) hold no symbols
(assignment_statement
  (expression_list
    value: (table_constructor
      (field
        name: (identifier) @name.definition.method
        value: (function_definition)) @definition.method)))

(function_call
  name: [
    (identifier) @name.reference.call
    (dot_index_expression field: (identifier) @name.reference.call)
    (method_index_expression method: (identifier) @name.reference.call)
  ]) @reference.call

; `require("luarocks.fs")`, `require "json"`
(function_call
  name: (identifier) @_require (#eq? @_require "require")
  arguments: (arguments . (string content: (string_content) @name.reference.import))) @reference.import
