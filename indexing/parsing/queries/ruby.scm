; codeatlas tags for Ruby: modules, classes, methods, calls, requires, superclasses, mixins.
(module
  name: [(constant) (scope_resolution)] @name.definition.module) @definition.module

(class
  name: [(constant) (scope_resolution)] @name.definition.class) @definition.class

(method
  name: (_) @name.definition.method) @definition.method

(singleton_method
  name: (_) @name.definition.method) @definition.method

(call
  method: (identifier) @name.reference.call) @reference.call

(call
  method: (identifier) @_require (#match? @_require "^(require|require_relative|load)$")
  arguments: (argument_list . (string (string_content) @name.reference.import))) @reference.import

(call
  method: (identifier) @_mixin (#match? @_mixin "^(include|extend|prepend)$")
  arguments: (argument_list [
    (constant) @name.reference.implements
    (scope_resolution name: (constant) @name.reference.implements)
  ]))

(superclass [
  (constant) @name.reference.extends
  (scope_resolution name: (constant) @name.reference.extends)
])
