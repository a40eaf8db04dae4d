-- The upgrade target becomes the active model (the switch of a complete upgrade).
UPDATE repositories SET active_embedding_model = upgrading_embedding_model,
  upgrading_embedding_model = NULL
WHERE id = %(repository_id)s
