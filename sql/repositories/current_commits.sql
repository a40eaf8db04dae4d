-- Name and current commit of the given repositories.
SELECT r.name, s.commit_sha FROM repositories r
LEFT JOIN snapshots s ON s.id = r.current_snapshot_id WHERE r.id = ANY(%(ids)s)
