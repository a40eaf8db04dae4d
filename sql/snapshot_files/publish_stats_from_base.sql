-- publish_stats of snapshot `new` from those stored for the published snapshot `base`: its
-- files counted, its chunks and symbols as base's plus those of the file versions that enter
-- (+n paths) or leave (-n) (no pass over the chunks of the files both share).
WITH side AS (
  SELECT file_version_id, count(*) AS n FROM snapshot_files
  WHERE snapshot_id = %(new)s AND file_version_id IS NOT NULL GROUP BY 1
  UNION ALL
  SELECT file_version_id, -count(*) FROM snapshot_files
  WHERE snapshot_id = %(base)s AND file_version_id IS NOT NULL GROUP BY 1),
delta AS (SELECT file_version_id, sum(n) AS n FROM side GROUP BY 1 HAVING sum(n) <> 0)
SELECT count(*) AS files, count(sf.file_version_id) AS indexed_files,
  (%(base_chunks)s + coalesce((SELECT sum(d.n * (SELECT count(*) FROM code_chunks c
     WHERE c.file_version_id = d.file_version_id)) FROM delta d), 0))::bigint AS chunks,
  (%(base_symbols)s + coalesce((SELECT sum(d.n * (SELECT count(*) FROM code_symbols c
     WHERE c.file_version_id = d.file_version_id)) FROM delta d), 0))::bigint AS symbols
FROM snapshot_files sf WHERE sf.snapshot_id = %(new)s
