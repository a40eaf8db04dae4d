-- Vectors are shared by content across repositories: a second checkout (or a fork, or a
-- vendored copy) of code already indexed embeds nothing. A vector alone reveals no code and
-- no repository; readers reach it only through the chunks of files they may see, so grants
-- still decide what a principal reads. Duplicates of one (model, content) keep the oldest row.
DELETE FROM chunk_embeddings a USING chunk_embeddings b
WHERE a.embedding_model = b.embedding_model AND a.content_hash = b.content_hash
  AND (a.created_at, a.repository_id) > (b.created_at, b.repository_id);
ALTER TABLE chunk_embeddings DROP CONSTRAINT chunk_embeddings_pkey;
ALTER TABLE chunk_embeddings DROP COLUMN repository_id;
ALTER TABLE chunk_embeddings ADD PRIMARY KEY (embedding_model, content_hash);
