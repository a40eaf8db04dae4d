-- Whether the snapshot's file list is stored (any row).
SELECT 1 FROM snapshot_files WHERE snapshot_id = %(snapshot_id)s LIMIT 1
