-- Publishing: the snapshot becomes current; the model becomes active if none was.
UPDATE repositories SET current_snapshot_id = %(snapshot_id)s,
  active_embedding_model = coalesce(active_embedding_model, %(model)s)
WHERE id = %(repository_id)s
