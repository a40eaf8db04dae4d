-- Every ready snapshot of the named repositories (all when no names) that are upgrading to
-- the model, by name then age.
SELECT r.name, s.commit_sha FROM snapshots s JOIN repositories r ON r.id = s.repository_id
WHERE r.upgrading_embedding_model = %(model)s AND s.status = 'ready'
  AND (%(names)s::text[] IS NULL OR r.name = ANY(%(names)s))
ORDER BY r.name, s.id
