-- A repository's ready snapshots and its current one, newest first.
SELECT s.id, s.commit_sha FROM snapshots s JOIN repositories r ON r.id = s.repository_id
WHERE r.name = %(repository)s AND (s.status = 'ready' OR s.id = r.current_snapshot_id)
ORDER BY s.id DESC
