-- Repositories the principal may read (grants checked here), with their current commit.
SELECT r.id, r.name, r.default_branch, r.active_embedding_model,
       s.commit_sha AS current_commit, s.ready_at
FROM repositories r JOIN principals p ON p.id = %(principal_id)s
LEFT JOIN snapshots s ON s.id = r.current_snapshot_id
WHERE p.all_repositories OR EXISTS (
    SELECT 1 FROM repository_grants g WHERE g.principal_id = p.id AND g.repository_id = r.id)
ORDER BY r.name
