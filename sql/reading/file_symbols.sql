-- The symbols of the visible file at the path, in each repository in line order (an enclosing
-- symbol before those it holds).
-- A template (retrieval/reading.py fills it with Python's str.format, a constant fragment only:
-- the visible files): no field names in comments.
WITH {visible_files}
SELECT s.id AS symbol_id, s.parent_id, s.file_version_id, s.name, s.qualified_name, s.kind,
       s.signature, s.start_line, s.end_line, f.repository, f.path, f.commit_sha, f.source
FROM files f JOIN code_symbols s ON s.file_version_id = f.file_version_id
WHERE f.path = %(path)s
ORDER BY f.repository, s.start_line, s.end_line DESC
