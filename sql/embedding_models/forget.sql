-- A model's row (its vectors and index are gone first).
DELETE FROM embedding_models WHERE name = %(model)s
