-- The chunk texts of the given file versions that contain the name (as written, anywhere).
SELECT p.file_version_id, t.content
FROM chunk_text_pages p, unnest(p.texts) t(content)
WHERE p.file_version_id = ANY(%(files)s) AND strpos(t.content, %(name)s) > 0
