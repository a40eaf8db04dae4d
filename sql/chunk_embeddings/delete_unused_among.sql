-- The vectors of these contents that no chunk of any repository holds any more.
DELETE FROM chunk_embeddings e WHERE e.content_hash = ANY(%(content_hashes)s)
  AND NOT EXISTS (SELECT 1 FROM code_chunks c WHERE c.content_hash = e.content_hash)
