-- The model last chosen by `codeatlas models upgrade`.
SELECT name FROM embedding_models WHERE chosen_at IS NOT NULL
ORDER BY chosen_at DESC, name LIMIT 1
