-- Chunk contents of the snapshot with no vector for the model yet, with their lengths.
SELECT DISTINCT ON (c.content_hash) c.content_hash, length(c.content) AS length
FROM snapshot_files sf JOIN code_chunks c ON c.file_version_id = sf.file_version_id
WHERE sf.snapshot_id = %(snapshot_id)s
  AND NOT EXISTS (
    SELECT 1 FROM chunk_embeddings e
    WHERE e.repository_id = %(repository_id)s
      AND e.embedding_model = %(model)s
      AND e.content_hash = c.content_hash)
