-- Paths of the snapshot that the staged file list no longer has.
DELETE FROM snapshot_files sf
WHERE sf.snapshot_id = %(snapshot_id)s
  AND NOT EXISTS (SELECT 1 FROM staged_files s WHERE s.path = sf.path)
