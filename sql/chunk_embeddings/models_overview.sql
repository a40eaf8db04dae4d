-- Per stored model: dimensions, provider, its vectors and the repositories using it.
SELECT m.name, m.dimensions, m.provider, m.provider_model,
  (SELECT count(*) FROM chunk_embeddings e WHERE e.embedding_model = m.name) AS n,
  (SELECT string_agg(name, ',') FROM repositories r
    WHERE r.active_embedding_model = m.name) AS active,
  (SELECT string_agg(name, ',') FROM repositories r
    WHERE r.upgrading_embedding_model = m.name) AS upgrading
FROM embedding_models m ORDER BY m.created_at
