-- (a fragment: the body of a CTE) The file versions that snapshot `snapshot_id` has and snapshot
-- `base_id` has not. Grouped, not an anti-join: a snapshot newer than the table's statistics is
-- estimated at a row or two, and a nested-loop anti-join of two 40,000-row lists took minutes.
SELECT file_version_id FROM (
  SELECT file_version_id, 1 AS here FROM snapshot_files
  WHERE snapshot_id = %(snapshot_id)s AND file_version_id IS NOT NULL
  UNION ALL
  SELECT file_version_id, 0 FROM snapshot_files
  WHERE snapshot_id = %(base_id)s AND file_version_id IS NOT NULL) side
GROUP BY 1 HAVING min(here) = 1
