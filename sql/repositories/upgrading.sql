-- Repositories in an upgrade: their current snapshot and its commit, both models.
SELECT r.id, r.name, r.current_snapshot_id, r.active_embedding_model AS active,
  r.upgrading_embedding_model AS upgrading, s.commit_sha
FROM repositories r LEFT JOIN snapshots s ON s.id = r.current_snapshot_id
WHERE r.upgrading_embedding_model IS NOT NULL ORDER BY r.name
