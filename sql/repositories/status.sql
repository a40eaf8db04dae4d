-- Per repository (all, one name, or the given ids): its current snapshot and pushes received.
SELECT r.*, s.commit_sha AS current_commit, s.committed_at, s.ready_at,
  (SELECT count(*) FROM snapshots x WHERE x.repository_id = r.id) AS snapshots,
  (SELECT max(received_at) FROM webhook_events w WHERE w.repository = r.name) AS last_push,
  (SELECT w.status || coalesce(': ' || w.detail, '') FROM webhook_events w
    WHERE w.repository = r.name ORDER BY w.received_at DESC, w.id DESC LIMIT 1)
    AS last_push_status,
  (SELECT count(*) FROM webhook_events w WHERE w.repository = r.name
    AND w.status = 'pending') AS pending_pushes
FROM repositories r LEFT JOIN snapshots s ON s.id = r.current_snapshot_id
WHERE (%(name)s::text IS NULL OR r.name = %(name)s)
  AND (%(ids)s::bigint[] IS NULL OR r.id = ANY(%(ids)s))
ORDER BY r.name
