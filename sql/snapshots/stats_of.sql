-- The statistics publishing stored for a repository's commit.
SELECT s.stats FROM snapshots s JOIN repositories r ON r.id = s.repository_id
WHERE r.name = %(repository)s AND s.commit_sha = %(commit_sha)s
