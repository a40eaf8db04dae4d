-- Those of the file versions no snapshot or overlay uses, locked; one an indexing run holds
-- is skipped (its lock is never waited for).
SELECT fv.id, fv.repository_id FROM file_versions fv WHERE fv.id = ANY(%(ids)s)
  AND NOT EXISTS (SELECT 1 FROM snapshot_files sf WHERE sf.file_version_id = fv.id)
  AND NOT EXISTS (SELECT 1 FROM overlay_files o WHERE o.file_version_id = fv.id)
FOR UPDATE SKIP LOCKED
