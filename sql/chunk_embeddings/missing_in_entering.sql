-- missing_in_snapshot, of the chunks of the file versions that the snapshot has and the
-- snapshot `base` (which has every vector of the model) has not: the chunks both share are not
-- read.
WITH entering AS (
  SELECT DISTINCT sf.file_version_id FROM snapshot_files sf
  WHERE sf.snapshot_id = %(snapshot_id)s AND sf.file_version_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM snapshot_files b
      WHERE b.snapshot_id = %(base_id)s AND b.file_version_id = sf.file_version_id))
SELECT DISTINCT ON (c.content_hash) c.content_hash, length(c.content) AS length
FROM entering en JOIN code_chunks c ON c.file_version_id = en.file_version_id
WHERE NOT EXISTS (
    SELECT 1 FROM chunk_embeddings e
    WHERE e.embedding_model = %(model)s
      AND e.content_hash = c.content_hash)
