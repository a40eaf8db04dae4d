-- The visible definitions of the identifiers a report names (by bare name), at most 20,000.
-- A template (retrieval/locate.py fills it with Python's str.format, a constant fragment only:
-- the visible files among the matched symbols' file versions): no field names in comments.
WITH matched AS MATERIALIZED (SELECT s.* FROM code_symbols s
    WHERE lower(s.name) = ANY(%(lowered)s) AND s.name = ANY(%(names)s)),
{visible_files}
SELECT s.name, s.qualified_name, s.kind, s.start_line, s.end_line,
       f.repository, f.path, f.file_version_id, f.commit_sha, f.source
FROM files f JOIN matched s ON s.file_version_id = f.file_version_id LIMIT 20000
