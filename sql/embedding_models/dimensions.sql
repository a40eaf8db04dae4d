-- The dimensions a model was registered with (no row: no vector of it was ever stored).
SELECT dimensions FROM embedding_models WHERE name = %(model)s
