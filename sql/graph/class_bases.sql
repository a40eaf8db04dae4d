-- The base names (extends clauses) of classes named by their qualified names or by the names
-- their subclasses' clauses write, in the scope's visible files: one level of a class's bases.
-- A template (retrieval/graph.py fills it with Python's str.format, a constant fragment only:
-- the visible files among those defining the classes): no field names in comments.
-- Parameters: the visible files', classes and lower_classes, names and lower_names.
-- The classes are found through the lower-case name indexes of code_symbols, their files
-- after them: never every visible file of the scope.
WITH classes AS MATERIALIZED (
    SELECT cs.id, cs.file_version_id, cs.qualified_name, cs.name
    FROM code_symbols cs
    WHERE (lower(cs.qualified_name) = ANY(%(lower_classes)s)
           AND cs.qualified_name = ANY(%(classes)s))
       OR (lower(cs.name) = ANY(%(lower_names)s) AND cs.name = ANY(%(names)s))),
{visible_files}
SELECT DISTINCT c.qualified_name AS klass, c.name, e.callee_name AS base
FROM files f JOIN classes c ON c.file_version_id = f.file_version_id
JOIN code_edges e ON e.caller_symbol_id = c.id AND e.kind = 'extends'
