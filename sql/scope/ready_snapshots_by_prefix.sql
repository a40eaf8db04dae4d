-- Up to two ready snapshots of the repository whose commit starts with the prefix (two: the
-- prefix is ambiguous).
SELECT id, commit_sha FROM snapshots
WHERE repository_id = %(repository_id)s AND status = 'ready' AND commit_sha LIKE %(prefix)s
ORDER BY id LIMIT 2
