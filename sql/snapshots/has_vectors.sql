-- Whether the snapshot was marked as having a vector of the model for every chunk content.
SELECT 1 FROM snapshots
WHERE id = %(snapshot_id)s AND coalesce(stats -> 'vectors', '[]'::jsonb) ? %(model)s
