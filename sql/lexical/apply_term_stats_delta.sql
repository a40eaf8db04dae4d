-- A repository's document frequencies moved from the snapshot `old` (NULL: from nothing) to
-- `new`: documents that enter (+n) or leave (-n) the corpus, as file versions with a
-- multiplicity, and the change of each of their terms' counts (a count that reaches 0 goes).
-- Terms share a row per bucket (sql/migrations/015): the buckets the delta touches are read,
-- merged with it and written again; a bucket left without terms goes.
-- (template: the delta CTE is sql/snapshot_files/file_version_delta.sql)
WITH delta AS (
{delta}),
terms AS (SELECT p.term, sum(d.n)::integer AS n FROM delta d
  JOIN code_chunks c ON c.file_version_id = d.file_version_id
  JOIN lexical_chunk_terms t ON t.chunk_id = c.id
  CROSS JOIN LATERAL unnest(t.terms) AS p(term) GROUP BY p.term HAVING sum(d.n) <> 0),
changed AS (SELECT codeatlas_rare_bucket(term) AS bucket, term, n FROM terms),
stored AS (
  SELECT s.bucket, u.term, u.df FROM lexical_term_stats s
  CROSS JOIN LATERAL unnest(s.terms, s.dfs) AS u(term, df)
  WHERE s.repository_id = %(repo)s AND s.bucket IN (SELECT bucket FROM changed)),
merged AS (
  SELECT coalesce(s.bucket, c.bucket) AS bucket, coalesce(s.term, c.term) AS term,
         coalesce(s.df, 0) + coalesce(c.n, 0) AS df
  FROM stored s FULL JOIN changed c ON c.term = s.term),
buckets AS (
  SELECT bucket, array_agg(term ORDER BY term) FILTER (WHERE df > 0) AS terms,
         array_agg(df ORDER BY term) FILTER (WHERE df > 0) AS dfs
  FROM merged GROUP BY bucket),
emptied AS (DELETE FROM lexical_term_stats s USING buckets b
  WHERE s.repository_id = %(repo)s AND s.bucket = b.bucket AND b.terms IS NULL)
INSERT INTO lexical_term_stats AS s (repository_id, bucket, terms, dfs)
SELECT %(repo)s, bucket, terms, dfs FROM buckets WHERE terms IS NOT NULL
ON CONFLICT (repository_id, bucket) DO UPDATE SET terms = EXCLUDED.terms, dfs = EXCLUDED.dfs
