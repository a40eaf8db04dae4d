-- publish_stats of snapshot `new` from those stored for the published snapshot `old`: its
-- files counted, its chunks and symbols as old's plus those of the file versions that enter
-- (+n paths) or leave (-n) (no pass over the chunks of the files both share; template: the
-- delta CTE is sql/snapshot_files/file_version_delta.sql).
WITH delta AS (
{delta})
SELECT count(*) AS files, count(sf.file_version_id) AS indexed_files,
  (%(base_chunks)s + coalesce((SELECT sum(d.n * (SELECT count(*) FROM code_chunks c
     WHERE c.file_version_id = d.file_version_id)) FROM delta d), 0))::bigint AS chunks,
  (%(base_symbols)s + coalesce((SELECT sum(d.n * (SELECT count(*) FROM code_symbols c
     WHERE c.file_version_id = d.file_version_id)) FROM delta d), 0))::bigint AS symbols
FROM snapshot_files sf WHERE sf.snapshot_id = %(new)s
