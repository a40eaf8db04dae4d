-- The visible files in the given folders, with their stored roles, at most 500.
-- A template (retrieval/locate.py fills it with Python's str.format, a constant fragment only:
-- the visible files): no field names in comments.
WITH {visible_files}
SELECT f.repository, f.path, f.commit_sha, f.source, f.file_version_id, fv.role
FROM files f LEFT JOIN file_versions fv ON fv.id = f.file_version_id
WHERE regexp_replace(f.path, '/?[^/]*$', '') = ANY(%(folders)s)
ORDER BY f.repository, f.path LIMIT 500
