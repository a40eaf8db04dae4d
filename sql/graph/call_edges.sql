-- The call edges matching a condition, in the scope's visible files, in path order: at most
-- max_edges, those in the given files (first_files: the asked definitions' own, whose calls
-- are the likeliest to resolve there) taken first, then the first others in path order; with
-- their callers' symbols and their files' language (the columns retrieval/graph.py reads),
-- and on every row the number of matching edges in all the visible files (calls).
-- A template (retrieval/graph.py fills it with Python's str.format, constant fragments only:
-- the condition on the edges, written on alias e, and the visible files among those holding
-- them): no field names in comments. Parameters: the condition's, the visible files',
-- first_files, max_edges.
--
-- The edges are counted per file version from the index alone (a hot name has thousands of
-- edges: the index on the callee's name carries the file version, sql/migrations/012), the
-- files sorted and summed in path order, and only the first files' edges are read from the heap.
--
-- Path order is repository, then path, byte-wise (as git lists files), sorted on one key: a
-- repository name has no space and every byte of it sorts after one, so the name, a space and
-- the path sort as the pair would. One key is decided by its first bytes; a sort on the pair
-- compares the repository's name, the same for every file of a scope, then takes the path out
-- of each row again, which made sorting 4,000 files cost ~10 ms of the server's CPU (a flag
-- for the first files ahead of it, ~3 ms: it is a prefix of the window's one key instead).
WITH per_version AS MATERIALIZED (
    SELECT e.file_version_id, count(*) AS n FROM code_edges e WHERE {matched} GROUP BY 1),
{visible_files},
per_file AS MATERIALIZED (
    SELECT f.repository, f.path, f.commit_sha, f.source, f.file_version_id, m.n,
           (f.repository || ' ' || f.path) COLLATE "C" AS file_order,
           -- the window's: the first files (0), then the others (1), each in path order
           ((CASE WHEN f.file_version_id = ANY(%(first_files)s::bigint[]) THEN '0' ELSE '1' END)
            || f.repository || ' ' || f.path) COLLATE "C" AS window_order
    FROM files f JOIN per_version m ON m.file_version_id = f.file_version_id),
page_files AS MATERIALIZED (
    SELECT f.*, fv.language
    FROM (SELECT *, sum(n) OVER (ORDER BY window_order, file_version_id
                                 ROWS UNBOUNDED PRECEDING) - n AS before
          FROM per_file) f
    JOIN file_versions fv ON fv.id = f.file_version_id
    WHERE f.before < %(max_edges)s)
SELECT page.callee_name, page.qualifier, page.line, page.file_version_id, page.repository,
       page.path, page.commit_sha, page.source, page.language, cs.qualified_name AS caller,
       cs.kind AS caller_kind, cs.signature AS caller_signature,
       (SELECT coalesce(sum(n), 0)::bigint FROM per_file) AS calls
FROM (
    SELECT e.callee_name, e.qualifier, e.line, e.ordinal, e.file_version_id, e.caller_symbol_id,
           f.repository, f.path, f.commit_sha, f.source, f.language, f.file_order
    FROM page_files f
    JOIN code_edges e ON e.file_version_id = f.file_version_id AND {matched}
    ORDER BY f.window_order, f.file_version_id, e.line, e.ordinal LIMIT %(max_edges)s) page
LEFT JOIN code_symbols cs ON cs.id = page.caller_symbol_id
ORDER BY page.file_order, page.file_version_id, page.line, page.ordinal
