-- The definitions in the scope's visible files of the given names, with their paths.
-- A template (retrieval/graph.py fills it with Python's str.format, a constant fragment only:
-- the visible files): no field names in comments.
WITH {visible_files}
SELECT s.name, s.qualified_name, s.start_line, f.path
FROM files f JOIN code_symbols s ON s.file_version_id = f.file_version_id
WHERE s.name = ANY(%(names)s)
