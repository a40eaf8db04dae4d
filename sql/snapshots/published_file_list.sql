-- The snapshot, if it is published at this parser version and file size limit.
SELECT id, commit_sha FROM snapshots WHERE id = %(snapshot_id)s AND status = 'ready'
  AND parser_version = %(parser_version)s
  AND (stats ->> 'max_file_bytes')::bigint = %(max_file_bytes)s
