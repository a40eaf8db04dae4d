-- One vector per model and content, shared by every repository holding that content.
INSERT INTO chunk_embeddings (embedding_model, content_hash, embedding)
VALUES (%(model)s, %(content_hash)s, %(embedding)s)
ON CONFLICT DO NOTHING
