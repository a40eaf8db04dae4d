-- The symbols matching a condition on s (served by an index of code_symbols) in the scope's
-- visible files matching a condition on f, the best rank first: at most limit.
-- A template (retrieval/symbols.py fills it with Python's str.format, constant fragments only:
-- the symbols' condition, the visible files among their file versions, the outline end column,
-- the rank expression and the files' condition): no field names in comments.
WITH matched AS MATERIALIZED (SELECT * FROM code_symbols s WHERE {where}),
{visible_files}
SELECT s.id AS symbol_id, s.file_version_id, s.name, s.qualified_name, s.kind, s.signature,
       s.start_line, s.end_line, f.repository, f.path, f.commit_sha, f.source,
       {outline_end}, {rank} AS rank
FROM files f JOIN matched s ON s.file_version_id = f.file_version_id
WHERE {file_where}
ORDER BY rank DESC, f.repository, f.path, s.start_line
LIMIT %(limit)s
