-- Chunk contents of the snapshot with no vector for the model yet (vectors are shared by
-- content across repositories: a content another repository embedded counts), with lengths.
SELECT DISTINCT ON (c.content_hash) c.content_hash, length(codeatlas_chunk_text(c.file_version_id, c.ordinal)) AS length
FROM snapshot_files sf JOIN code_chunks c ON c.file_version_id = sf.file_version_id
WHERE sf.snapshot_id = %(snapshot_id)s
  AND NOT EXISTS (
    SELECT 1 FROM chunk_embeddings e
    WHERE e.embedding_model = %(model)s
      AND e.content_hash = c.content_hash)
