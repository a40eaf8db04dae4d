-- The snapshot's indexable files of one blob are the parsed file version.
UPDATE snapshot_files SET file_version_id = %(file_version_id)s
WHERE snapshot_id = %(snapshot_id)s AND blob_sha = %(blob_sha)s AND skip_reason IS NULL
