-- The active model of the named repositories (all when no names), locked, by name.
SELECT name, active_embedding_model AS active FROM repositories
WHERE %(names)s::text[] IS NULL OR name = ANY(%(names)s) ORDER BY name FOR UPDATE
