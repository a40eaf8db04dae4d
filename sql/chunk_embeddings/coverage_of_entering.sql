-- coverage_of_snapshot, of the chunks of the file versions that the snapshot has and the
-- snapshot `base` (which has every vector of the model) has not.
WITH entering AS (
  SELECT DISTINCT sf.file_version_id FROM snapshot_files sf
  WHERE sf.snapshot_id = %(snapshot_id)s AND sf.file_version_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM snapshot_files b
      WHERE b.snapshot_id = %(base_id)s AND b.file_version_id = sf.file_version_id))
SELECT count(DISTINCT c.content_hash) AS total, count(DISTINCT e.content_hash) AS embedded
FROM entering en JOIN code_chunks c ON c.file_version_id = en.file_version_id
LEFT JOIN chunk_embeddings e
  ON e.embedding_model = %(model)s
  AND e.content_hash = c.content_hash
