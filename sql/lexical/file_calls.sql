-- Calls between the functions of the same file, for the given file versions: the caller's and
-- the callee's qualified names (a callee matched by its bare name among the file's own
-- functions). retrieval/locate.py passes a named function's evidence along these edges.
SELECT e.file_version_id, caller.qualified_name AS caller, callee.qualified_name AS callee,
       callee.kind, callee.start_line, callee.end_line,
       caller.kind AS caller_kind, caller.start_line AS caller_start,
       caller.end_line AS caller_end
FROM code_edges e
JOIN code_symbols caller ON caller.id = e.caller_symbol_id
JOIN code_symbols callee ON callee.file_version_id = e.file_version_id
     AND callee.name = e.callee_name AND callee.kind = ANY(%(kinds)s)
WHERE e.file_version_id = ANY(%(versions)s) AND e.kind = 'call'
  AND caller.kind = ANY(%(kinds)s) AND caller.id <> callee.id
