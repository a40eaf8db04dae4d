-- The parsed file versions no snapshot or overlay uses.
DELETE FROM file_versions fv WHERE parsed_at IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM snapshot_files sf WHERE sf.file_version_id = fv.id)
  AND NOT EXISTS (SELECT 1 FROM overlay_files o WHERE o.file_version_id = fv.id)
