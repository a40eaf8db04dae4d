-- The snapshot is complete at this parser version, with its statistics (publishing).
UPDATE snapshots SET status = 'ready', ready_at = coalesce(ready_at, now()),
  parser_version = %(parser_version)s, stats = %(stats)s
WHERE id = %(snapshot_id)s
