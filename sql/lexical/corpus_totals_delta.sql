-- The change of a repository's corpus (documents: chunks counted once per path; their total
-- length) from snapshot `old` to `new`: the chunks of the file versions that enter (+n paths)
-- or leave (-n), so the chunks both snapshots share are not read.
WITH side AS (
  SELECT file_version_id, count(*) AS n FROM snapshot_files
  WHERE snapshot_id = %(new)s AND file_version_id IS NOT NULL GROUP BY 1
  UNION ALL
  SELECT file_version_id, -count(*) FROM snapshot_files
  WHERE snapshot_id = %(old)s AND file_version_id IS NOT NULL GROUP BY 1),
delta AS (SELECT file_version_id, sum(n) AS n FROM side GROUP BY 1 HAVING sum(n) <> 0)
SELECT coalesce(sum(d.n), 0)::bigint AS documents,
  coalesce(sum(d.n * c.lexical_length), 0)::bigint AS total_length
FROM delta d JOIN code_chunks c ON c.file_version_id = d.file_version_id
