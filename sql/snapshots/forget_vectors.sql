-- No snapshot counts as having the model's vectors any more (they are being dropped).
UPDATE snapshots SET stats = jsonb_set(stats, ARRAY['vectors'], (stats -> 'vectors') - %(model)s)
WHERE stats -> 'vectors' ? %(model)s
