-- coverage_of_snapshot, of the chunks of the file versions that the snapshot has and the
-- snapshot `base` (which has every vector of the model) has not.
WITH side AS (
  SELECT file_version_id, 1 AS here FROM snapshot_files
  WHERE snapshot_id = %(snapshot_id)s AND file_version_id IS NOT NULL
  UNION ALL
  SELECT file_version_id, 0 FROM snapshot_files
  WHERE snapshot_id = %(base_id)s AND file_version_id IS NOT NULL),
-- (grouped, not an anti-join: a snapshot newer than the table's statistics is estimated at a
-- row or two, and a nested-loop anti-join of two 40,000-row lists took minutes)
entering AS (SELECT file_version_id FROM side GROUP BY 1 HAVING min(here) = 1)
SELECT count(DISTINCT c.content_hash) AS total, count(DISTINCT e.content_hash) AS embedded
FROM entering en JOIN code_chunks c ON c.file_version_id = en.file_version_id
LEFT JOIN chunk_embeddings e
  ON e.embedding_model = %(model)s
  AND e.content_hash = c.content_hash
