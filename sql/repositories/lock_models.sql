-- The current snapshot and the active and upgrading models of a repository, locked.
SELECT id, current_snapshot_id, active_embedding_model AS active,
  upgrading_embedding_model AS upgrading
FROM repositories WHERE name = %(name)s FOR UPDATE
