-- The commit's snapshot row, created once; re-running a commit keeps it.
INSERT INTO snapshots (repository_id, commit_sha, ref, parser_version, committed_at)
VALUES (%(repository_id)s, %(commit_sha)s, %(ref)s, %(parser_version)s, %(committed_at)s)
ON CONFLICT (repository_id, commit_sha) DO UPDATE SET ref = snapshots.ref
RETURNING id
