-- Distinct chunk contents of the snapshot, and how many of them have a vector for the model.
SELECT count(DISTINCT c.content_hash) AS total, count(DISTINCT e.content_hash) AS embedded
FROM snapshot_files sf JOIN code_chunks c ON c.file_version_id = sf.file_version_id
LEFT JOIN chunk_embeddings e
  ON e.embedding_model = %(model)s
  AND e.content_hash = c.content_hash
WHERE sf.snapshot_id = %(snapshot_id)s
