-- Distinct contents of a file version's chunks with no vector for the model (the content, and
-- the first qualified name holding it), shortest first.
SELECT DISTINCT ON (length(t.content), c.content_hash) c.content_hash, t.content,
  c.qualified_name
FROM code_chunks c,
  LATERAL (SELECT codeatlas_chunk_text(c.file_version_id, c.ordinal) AS content) t
WHERE c.file_version_id = %(file_version_id)s AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e
  WHERE e.embedding_model = %(model)s AND e.content_hash = c.content_hash)
ORDER BY length(t.content), c.content_hash, c.qualified_name
