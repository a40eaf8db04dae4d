-- The snapshot's files of one blob are skipped, for a reason found in their content.
UPDATE snapshot_files SET skip_reason = %(reason)s, file_version_id = NULL
WHERE snapshot_id = %(snapshot_id)s AND blob_sha = %(blob_sha)s
