-- A repository's document frequencies moved from the snapshot `old` (NULL: from nothing) to
-- `new`: documents that enter (+n) or leave (-n) the corpus, as file versions with a
-- multiplicity, and the change of each of their terms' counts (a count that reaches 0 goes;
-- template: the delta CTE is sql/snapshot_files/file_version_delta.sql).
WITH delta AS (
{delta}),
terms AS (SELECT p.term, sum(d.n)::integer AS n FROM delta d
  JOIN code_chunks c ON c.file_version_id = d.file_version_id
  JOIN lexical_chunk_terms t ON t.chunk_id = c.id
  CROSS JOIN LATERAL unnest(t.terms) AS p(term) GROUP BY p.term),
gone AS (DELETE FROM lexical_term_stats s USING terms t
  WHERE s.repository_id = %(repo)s AND s.term = t.term AND t.n < 0
  AND s.df + t.n <= 0),
fewer AS (UPDATE lexical_term_stats s SET df = s.df + t.n FROM terms t
  WHERE s.repository_id = %(repo)s AND s.term = t.term AND t.n < 0
  AND s.df + t.n > 0)
INSERT INTO lexical_term_stats AS s (repository_id, term, df)
SELECT %(repo)s, term, n FROM terms WHERE n > 0
ON CONFLICT (term, repository_id) DO UPDATE SET df = s.df + EXCLUDED.df
