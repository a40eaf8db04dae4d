-- The ids of a repository's ready snapshots, oldest first.
SELECT id FROM snapshots WHERE repository_id = %(repository_id)s AND status = 'ready' ORDER BY id
