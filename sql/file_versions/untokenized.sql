-- The snapshot's parsed file versions not tokenized at this lexical version, with one path of
-- each.
SELECT fv.id, min(sf.path) AS path FROM snapshot_files sf
JOIN file_versions fv ON fv.id = sf.file_version_id
WHERE sf.snapshot_id = %(snapshot_id)s AND fv.parsed_at IS NOT NULL
  AND fv.lexical_version IS DISTINCT FROM %(version)s
GROUP BY fv.id ORDER BY fv.id
