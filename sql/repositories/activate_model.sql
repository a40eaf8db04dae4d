-- The model becomes a repository's active one at once, with no upgrade under way.
UPDATE repositories SET active_embedding_model = %(model)s, upgrading_embedding_model = NULL
WHERE name = %(name)s
