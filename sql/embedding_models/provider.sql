-- How a stored model was made.
SELECT provider, provider_model, provider_dimensions, base_url FROM embedding_models
WHERE name = %(model)s
