-- Snapshots (their file lists go with them).
DELETE FROM snapshots WHERE id = ANY(%(snapshot_ids)s)
