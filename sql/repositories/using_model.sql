-- Names of the repositories whose active or upgrading model is this one.
SELECT name FROM repositories
WHERE active_embedding_model = %(model)s OR upgrading_embedding_model = %(model)s
ORDER BY name
