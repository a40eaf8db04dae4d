-- (a fragment: the body of a CTE) The file versions that enter (+n paths) or leave (-n) a
-- repository's corpus from snapshot `old` (NULL: from nothing) to `new`, with their multiplicity:
-- what the statements that move totals by a delta read instead of every chunk.
SELECT file_version_id, sum(n)::integer AS n FROM (
  SELECT file_version_id, count(*) AS n FROM snapshot_files
  WHERE snapshot_id = %(new)s AND file_version_id IS NOT NULL GROUP BY 1
  UNION ALL
  SELECT file_version_id, -count(*) FROM snapshot_files
  WHERE snapshot_id = %(old)s AND file_version_id IS NOT NULL GROUP BY 1) side
GROUP BY 1 HAVING sum(n) <> 0
