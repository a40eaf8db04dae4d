-- A snapshot's files by skip reason (NULL: indexable), with their bytes.
SELECT skip_reason, count(*) AS files, coalesce(sum(size_bytes), 0)::bigint AS bytes
FROM snapshot_files WHERE snapshot_id = %(snapshot_id)s
GROUP BY skip_reason
