-- A model and the name of its partial HNSW index (once: a second run finds it).
INSERT INTO embedding_models (name, dimensions, index_name)
VALUES (%(model)s, %(dimensions)s, %(index)s)
ON CONFLICT DO NOTHING
