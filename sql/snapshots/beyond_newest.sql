-- Snapshots older than the newest ones kept of their repository, never the current one nor
-- one still building.
SELECT id FROM (
  SELECT s.id, s.status, r.current_snapshot_id, row_number() OVER
    (PARTITION BY s.repository_id ORDER BY coalesce(s.committed_at, s.created_at) DESC,
     s.id DESC) AS n
  FROM snapshots s JOIN repositories r ON r.id = s.repository_id
) x
WHERE n > %(keep)s AND id IS DISTINCT FROM current_snapshot_id AND status <> 'building'
