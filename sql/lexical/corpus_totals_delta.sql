-- The change of a repository's corpus (documents: chunks counted once per path; their total
-- length) from snapshot `old` to `new`: the chunks of the file versions that enter (+n paths)
-- or leave (-n), so the chunks both snapshots share are not read (template: the delta CTE is
-- sql/snapshot_files/file_version_delta.sql).
WITH delta AS (
{delta})
SELECT coalesce(sum(d.n), 0)::bigint AS documents,
  coalesce(sum(d.n * c.lexical_length), 0)::bigint AS total_length
FROM delta d JOIN code_chunks c ON c.file_version_id = d.file_version_id
