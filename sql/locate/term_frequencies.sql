-- How many units of the repositories hold each term (its document frequency).
SELECT term, sum(df)::float8 AS df FROM lexical_term_stats
WHERE term = ANY(%(terms)s) AND repository_id = ANY(%(repos)s) GROUP BY term
