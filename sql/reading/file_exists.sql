-- A row when a file at the path is visible (a file may hold no symbols).
-- A template (retrieval/reading.py fills it with Python's str.format, a constant fragment only:
-- the visible files): no field names in comments.
WITH {visible_files}
SELECT 1 AS found FROM files f WHERE f.path = %(path)s LIMIT 1
