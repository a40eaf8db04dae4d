-- The snapshot's parsed file versions whose role was never read from their content (parsed
-- before file_versions.role existed): indexing/role_backfill.py reads it from their chunks.
SELECT DISTINCT fv.id, fv.language
FROM snapshot_files sf
JOIN file_versions fv ON fv.id = sf.file_version_id
WHERE sf.snapshot_id = %(snapshot)s AND fv.role IS NULL AND fv.parsed_at IS NOT NULL
ORDER BY fv.id
