-- The visible files named like a frame's, a quoted path's or a dotted module's file.
-- A template (retrieval/locate.py fills it with Python's str.format, a constant fragment only:
-- the visible files among the named file versions): no field names in comments.
WITH {visible_files}
SELECT f.repository, f.path, f.file_version_id, f.commit_sha, f.source FROM files f
WHERE regexp_replace(f.path, '^.*/', '') = ANY(%(names)s)
