-- Every repository with its current snapshot's commit, parser version and status.
SELECT r.*, s.commit_sha AS current_commit, s.parser_version, s.status AS snap_status
FROM repositories r LEFT JOIN snapshots s ON s.id = r.current_snapshot_id
ORDER BY r.name
