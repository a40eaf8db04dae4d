-- coverage_of_snapshot, of the chunks of the file versions that the snapshot has and the
-- snapshot `base` (which has every vector of the model) has not (template: the entering CTE is
-- sql/snapshot_files/entering_file_versions.sql).
WITH entering AS (
{entering})
SELECT count(DISTINCT c.content_hash) AS total, count(DISTINCT e.content_hash) AS embedded
FROM entering en JOIN code_chunks c ON c.file_version_id = en.file_version_id
LEFT JOIN chunk_embeddings e
  ON e.embedding_model = %(model)s
  AND e.content_hash = c.content_hash
