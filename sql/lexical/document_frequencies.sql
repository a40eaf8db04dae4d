-- The document frequencies of the given terms over the given repositories, summed (a term's
-- sits in its bucket's row: sql/migrations/015). retrieval/locate.py weighs a report's words.
SELECT u.term, sum(u.df)::float8 AS df
FROM lexical_term_stats s
CROSS JOIN LATERAL unnest(s.terms, s.dfs) AS u(term, df)
WHERE s.repository_id = ANY(%(repos)s)
  AND s.bucket = ANY(ARRAY(SELECT codeatlas_rare_bucket(t) FROM unnest(%(terms)s::bigint[]) t))
  AND u.term = ANY(%(terms)s)
GROUP BY u.term
