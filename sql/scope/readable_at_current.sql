-- The repositories (all when names is NULL) the principal may read, with their current
-- snapshot, its commit and the active embedding model.
SELECT r.id, r.name, r.current_snapshot_id, r.active_embedding_model, s.commit_sha
FROM repositories r JOIN principals p ON p.id = %(pid)s
LEFT JOIN snapshots s ON s.id = r.current_snapshot_id
WHERE (%(names)s::text[] IS NULL OR r.name = ANY(%(names)s))
  AND (p.all_repositories OR EXISTS (SELECT 1 FROM repository_grants g
       WHERE g.principal_id = p.id AND g.repository_id = r.id))
ORDER BY r.name
