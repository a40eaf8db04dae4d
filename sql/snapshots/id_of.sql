-- The id of a repository's snapshot of one commit, if one was started.
SELECT id FROM snapshots WHERE repository_id = %(repository_id)s AND commit_sha = %(commit_sha)s
