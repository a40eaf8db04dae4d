-- The model new indexing work embeds with, chosen by `codeatlas models upgrade` and read by every
-- process (CLI, daemon, sensors, run workers) instead of each one's own environment: processes
-- started with different CODEATLAS_EMBEDDING_* settings then agree. The latest choice wins;
-- with none recorded, the environment configures the model as before.
ALTER TABLE embedding_models ADD COLUMN chosen_at timestamptz;
