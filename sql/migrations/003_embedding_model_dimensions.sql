-- The dimensions a model was *asked* for (NULL: the provider's default), as opposed to
-- embedding_models.dimensions, the size its vectors have. Rebuilding an embedder passes this.
ALTER TABLE embedding_models ADD COLUMN provider_dimensions integer;
