-- The distinct contents of the file versions' chunks.
SELECT DISTINCT c.content_hash FROM code_chunks c WHERE c.file_version_id = ANY(%(ids)s)
