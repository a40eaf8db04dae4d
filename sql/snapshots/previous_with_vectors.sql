-- The snapshot current when this one was published, if it has every vector of the model.
SELECT b.id FROM snapshots s
JOIN snapshots b ON b.id = (s.stats ->> 'previous_snapshot_id')::bigint
WHERE s.id = %(snapshot_id)s AND b.repository_id = s.repository_id
  AND coalesce(b.stats -> 'vectors', '[]'::jsonb) ? %(model)s
