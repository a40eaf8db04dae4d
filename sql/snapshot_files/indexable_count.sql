-- How many of the snapshot's files are not skipped.
SELECT count(*) AS n FROM snapshot_files
WHERE snapshot_id = %(snapshot_id)s AND skip_reason IS NULL
