-- The given file versions with a chunk text that the regular expression (pattern) matches.
SELECT DISTINCT p.file_version_id
FROM chunk_text_pages p, unnest(p.texts) t(content)
WHERE p.file_version_id = ANY(%(files)s) AND t.content ~ %(pattern)s
