-- Every chunk content of the snapshot has a vector of the model (its embedding finished):
-- the model joins the snapshot's list of complete models, once.
UPDATE snapshots
SET stats = jsonb_set(stats, ARRAY['vectors'],
  coalesce(stats -> 'vectors', '[]'::jsonb) || to_jsonb(%(model)s::text))
WHERE id = %(snapshot_id)s AND NOT coalesce(stats -> 'vectors', '[]'::jsonb) ? %(model)s
