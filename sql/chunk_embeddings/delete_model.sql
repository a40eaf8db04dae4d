-- Every vector of one model.
DELETE FROM chunk_embeddings WHERE embedding_model = %(model)s
