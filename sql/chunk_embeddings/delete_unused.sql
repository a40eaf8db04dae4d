-- The vectors of contents no chunk holds any more.
DELETE FROM chunk_embeddings e WHERE NOT EXISTS
  (SELECT 1 FROM code_chunks c WHERE c.content_hash = e.content_hash)
