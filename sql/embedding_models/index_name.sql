-- The name of a stored model's HNSW index.
SELECT index_name FROM embedding_models WHERE name = %(model)s
