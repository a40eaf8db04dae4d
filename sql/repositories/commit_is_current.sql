-- A row if the commit is the repository's current snapshot, ready, at this parser version.
SELECT 1 FROM repositories r JOIN snapshots s ON s.id = r.current_snapshot_id
WHERE r.id = %(repository_id)s AND s.commit_sha = %(commit_sha)s AND s.status = 'ready'
  AND s.parser_version = %(parser_version)s
