-- Each file version's first and last chunk line: a located file's span as a search hit.
SELECT file_version_id, min(start_line) AS first, max(end_line) AS last
FROM code_chunks WHERE file_version_id = ANY(%(ids)s) GROUP BY file_version_id
