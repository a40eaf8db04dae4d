-- The CTEs `scope` (one row per repository at its snapshot, the principal's grants re-checked)
-- and `files` (path -> file version, "commit" or "working-tree") that every retrieval query
-- starts with. Parameters: scope_repos, scope_snapshots, scope_overlay, principal_id.
-- A template (retrieval/scope.py fills it with Python's str.format, constant fragments only):
-- no field names in comments.
{candidates}
scope AS (
    SELECT r.id AS repository_id, r.name AS repository, s.id AS snapshot_id,
           s.commit_sha, x.overlay
    FROM unnest(%(scope_repos)s::bigint[], %(scope_snapshots)s::bigint[],
                %(scope_overlay)s::boolean[]) AS x(repository_id, snapshot_id, overlay)
    JOIN repositories r ON r.id = x.repository_id
    -- (CASE: the planner would multiply the two equalities' selectivities and expect one
    -- repository whatever the scope, then scan the files once per candidate)
    JOIN snapshots s ON s.id = x.snapshot_id
        AND CASE WHEN s.repository_id = r.id THEN s.status = 'ready' ELSE false END
    JOIN principals p ON p.id = %(principal_id)s
    WHERE p.all_repositories OR EXISTS (
        SELECT 1 FROM repository_grants g WHERE g.principal_id = p.id AND g.repository_id = r.id)
),
files AS {files_materialized}(
    SELECT sc.repository_id, sc.repository, sc.commit_sha, sf.path, sf.file_version_id,
           'commit'::text AS source
    FROM scope sc JOIN {snapshot_files} sf ON sf.snapshot_id = sc.snapshot_id
    WHERE sf.file_version_id IS NOT NULL
      AND NOT (sc.overlay AND EXISTS (
          SELECT 1 FROM overlay_files o WHERE o.repository_id = sc.repository_id
          AND o.principal_id = %(principal_id)s AND o.path = sf.path
          AND o.expires_at > now()))
    UNION ALL
    SELECT sc.repository_id, sc.repository, sc.commit_sha, o.path, o.file_version_id,
           'working-tree'::text
    FROM scope sc JOIN overlay_files o
      ON o.repository_id = sc.repository_id AND o.principal_id = %(principal_id)s
    -- expired files are invisible at once, before the server's sweep deletes them
    WHERE sc.overlay AND o.expires_at > now(){overlay_filter}
)
