-- The model new indexing work embeds with, in every process (`codeatlas models upgrade`).
UPDATE embedding_models SET chosen_at = now() WHERE name = %(model)s
