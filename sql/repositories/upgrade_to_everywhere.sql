-- The model becomes the upgrade target of every repository with another active model and no
-- upgrade under way; their names.
UPDATE repositories SET upgrading_embedding_model = %(model)s
WHERE active_embedding_model IS NOT NULL AND active_embedding_model <> %(model)s
  AND upgrading_embedding_model IS NULL
RETURNING name
