-- The repositories that track a branch, with the commit they serve.
SELECT r.name, r.origin, r.default_branch, s.commit_sha AS current FROM repositories r
LEFT JOIN snapshots s ON s.id = r.current_snapshot_id
WHERE r.default_branch IS NOT NULL ORDER BY r.name
