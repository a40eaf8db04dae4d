-- BM25 candidates of the query's terms over the lexical index (docs/lexical.md), best first.
-- Parameters: terms, weights, repos (the statistics' scope), read (the repositories whose
-- postings are read: all of them, or a group), budget, unseen, candidates, k1, b.
WITH q AS (SELECT * FROM unnest(%(terms)s::bigint[], %(weights)s::float8[]) AS q(term, qw)),
corpus AS (
    SELECT coalesce(sum(documents), 0)::float8 AS n,
           greatest(coalesce(sum(total_length), 0)::float8 / greatest(sum(documents), 1), 1.0)
               AS avgdl
    FROM lexical_corpus WHERE repository_id = ANY(%(repos)s)),
df AS (
    SELECT s.term, s.repository_id, s.df FROM lexical_term_stats s
    WHERE s.term = ANY(%(terms)s) AND s.repository_id = ANY(%(repos)s)),
weights AS (
    SELECT q.term, q.qw * ln(1 + (corpus.n - coalesce(t.df, 0) + 0.5) / (coalesce(t.df, 0) + 0.5))
               AS w,
           coalesce(t.df, 0) AS df
    FROM q CROSS JOIN corpus
    LEFT JOIN (SELECT term, sum(df) AS df FROM df GROUP BY term) t ON t.term = q.term),
reads AS (
    -- per term a budget in proportion to its weight (the query's rarest term gets all of it),
    -- shared between the repositories by their postings; a few where the statistics have none
    -- (a working-tree overlay's own words)
    SELECT w.term, w.w, r.id AS repository_id,
           coalesce(ceil(%(budget)s * w.w / greatest(max(w.w) OVER (), 1e-9)
                         * d.df::float8 / greatest(w.df, 1))::int, %(unseen)s) AS n
    FROM weights w CROSS JOIN unnest(%(read)s::bigint[]) AS r(id)
    LEFT JOIN df d ON d.term = w.term AND d.repository_id = r.id),
partial AS (
    -- the best postings' impacts (BM25's tf factor at a nominal length) give the candidates
    SELECT p.chunk_id, sum(x.w * p.impact) AS score
    FROM reads x
    CROSS JOIN LATERAL (
        SELECT chunk_id, impact FROM lexical_postings lp
        WHERE lp.repository_id = x.repository_id AND lp.term = x.term
        ORDER BY lp.impact DESC LIMIT x.n) p
    GROUP BY p.chunk_id
    ORDER BY score DESC LIMIT %(candidates)s),
exact AS (
    SELECT c.chunk_id, c.score AS partial, sum(w.w * p.tf * (%(k1)s + 1)
               / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * ch.lexical_length / corpus.avgdl)))
               AS score
    FROM partial c
    JOIN code_chunks ch ON ch.id = c.chunk_id
    -- each candidate's own postings, through the chunk index (OFFSET 0: not flattened into a
    -- join). The planner guesses a term's postings at the average (26 on a 700k-chunk kernel
    -- index) and read all postings of each query term instead: 457,000 rows, 3.6 s.
    CROSS JOIN LATERAL (
        SELECT lp.term, lp.tf FROM lexical_postings lp
        WHERE lp.chunk_id = c.chunk_id AND lp.term = ANY(%(terms)s) OFFSET 0) p
    JOIN weights w ON w.term = p.term
    CROSS JOIN corpus
    GROUP BY c.chunk_id, c.score)
SELECT chunk_id, partial, score FROM exact ORDER BY score DESC, chunk_id
