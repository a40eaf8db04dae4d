-- Every path of a repository's snapshot of one commit (skipped ones too).
SELECT sf.path FROM snapshot_files sf JOIN snapshots s ON s.id = sf.snapshot_id
WHERE s.repository_id = %(repository_id)s AND s.commit_sha = %(commit_sha)s
