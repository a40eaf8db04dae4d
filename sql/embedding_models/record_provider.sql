-- How a model was made, to rebuild its embedder in another process.
UPDATE embedding_models SET provider = %(provider)s, provider_model = %(provider_model)s,
  provider_dimensions = %(provider_dimensions)s, base_url = %(base_url)s
WHERE name = %(model)s
