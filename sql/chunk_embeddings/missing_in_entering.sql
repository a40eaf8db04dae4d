-- missing_in_snapshot, of the chunks of the file versions that the snapshot has and the
-- snapshot `base` (which has every vector of the model) has not: the chunks both share are not
-- read (template: the entering CTE is sql/snapshot_files/entering_file_versions.sql).
WITH entering AS (
{entering})
SELECT DISTINCT ON (c.content_hash) c.content_hash, c.end_byte - c.start_byte AS length
FROM entering en JOIN code_chunks c ON c.file_version_id = en.file_version_id
WHERE NOT EXISTS (
    SELECT 1 FROM chunk_embeddings e
    WHERE e.embedding_model = %(model)s
      AND e.content_hash = c.content_hash)
