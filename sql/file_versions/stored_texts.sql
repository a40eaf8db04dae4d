-- Each file version's stored chunk texts, in file order, joined by newlines.
SELECT file_version_id,
       string_agg(codeatlas_chunk_text(file_version_id, ordinal), E'\n' ORDER BY ordinal) AS text
FROM code_chunks
WHERE file_version_id = ANY(%(ids)s)
GROUP BY file_version_id
