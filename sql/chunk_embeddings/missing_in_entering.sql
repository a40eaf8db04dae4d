-- missing_in_snapshot, of the chunks of the file versions that the snapshot has and the
-- snapshot `base` (which has every vector of the model) has not: the chunks both share are not
-- read.
WITH side AS (
  SELECT file_version_id, 1 AS here FROM snapshot_files
  WHERE snapshot_id = %(snapshot_id)s AND file_version_id IS NOT NULL
  UNION ALL
  SELECT file_version_id, 0 FROM snapshot_files
  WHERE snapshot_id = %(base_id)s AND file_version_id IS NOT NULL),
-- (grouped, not an anti-join: a snapshot newer than the table's statistics is estimated at a
-- row or two, and a nested-loop anti-join of two 40,000-row lists took minutes)
entering AS (SELECT file_version_id FROM side GROUP BY 1 HAVING min(here) = 1)
SELECT DISTINCT ON (c.content_hash) c.content_hash, length(c.content) AS length
FROM entering en JOIN code_chunks c ON c.file_version_id = en.file_version_id
WHERE NOT EXISTS (
    SELECT 1 FROM chunk_embeddings e
    WHERE e.embedding_model = %(model)s
      AND e.content_hash = c.content_hash)
