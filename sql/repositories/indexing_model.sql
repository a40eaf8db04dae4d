-- The model a repository is upgrading to, else its active one.
SELECT coalesce(upgrading_embedding_model, active_embedding_model) AS model
FROM repositories WHERE name = %(name)s
