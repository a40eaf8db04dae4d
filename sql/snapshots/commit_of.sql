-- The commit of a snapshot.
SELECT commit_sha FROM snapshots WHERE id = %(snapshot_id)s
