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
    -- the best postings' impacts (BM25's tf factor at a nominal length) give the candidates: a
    -- term's best `n` among its blocks (those holding its first `n` ranks, or its bucket's shared
    -- row) and its rows (postings published since the blocks were built); a chunk in both (a
    -- build racing a publish) once
    SELECT p.chunk_id, sum(x.w * p.impact) AS score
    FROM reads x
    CROSS JOIN LATERAL (
        SELECT u.chunk_id, max(u.impact) AS impact
        FROM (
            (SELECT lp.chunk_id, lp.impact FROM lexical_postings lp
             WHERE lp.repository_id = x.repository_id AND lp.term = x.term
             ORDER BY lp.impact DESC, lp.chunk_id LIMIT x.n)
            UNION ALL
            SELECT (sum(t.delta) OVER (PARTITION BY b.block ORDER BY t.i))::bigint,
                   t.impact::real / 10000
            FROM lexical_blocks b
            CROSS JOIN LATERAL unnest(b.chunks, b.impacts) WITH ORDINALITY AS t(delta, impact, i)
            WHERE b.repository_id = x.repository_id AND b.term = x.term
              AND b.block BETWEEN 0 AND codeatlas_posting_block(x.n - 1)
            UNION ALL
            -- a rare term's postings, in the row it shares with its bucket's other rare terms
            SELECT r.chunk_id, r.impact
            FROM (
                SELECT (sum(t.delta) OVER (ORDER BY t.i))::bigint AS chunk_id,
                       t.impact::real / 10000 AS impact, t.term
                FROM lexical_blocks b
                CROSS JOIN LATERAL unnest(b.chunks, b.impacts, b.terms)
                    WITH ORDINALITY AS t(delta, impact, term, i)
                WHERE b.repository_id = x.repository_id
                  AND b.term = codeatlas_rare_bucket(x.term) AND b.block = -1) r
            WHERE r.term = x.term) u
        GROUP BY u.chunk_id
        -- postings of equal impact lowest chunk first, as the blocks rank them: which are read
        -- at a budget's edge must not depend on the plan (a hashed grouping reorders them)
        ORDER BY impact DESC, u.chunk_id LIMIT x.n) p
    GROUP BY p.chunk_id
    ORDER BY score DESC, p.chunk_id LIMIT %(candidates)s),
exact AS (
    SELECT c.chunk_id, c.score AS partial, sum(w.w * p.tf * (%(k1)s + 1)
               / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * ch.lexical_length / corpus.avgdl)))
               AS score
    FROM partial c
    JOIN code_chunks ch ON ch.id = c.chunk_id
    -- each candidate's terms, from its row of chunk terms by its key (OFFSET 0: not flattened
    -- into a join). Joined, the planner may read every chunk's terms to score a few hundred;
    -- with postings as rows it read all postings of each query term instead: 3.6 s for one
    -- question on a 700k-chunk kernel index.
    CROSS JOIN LATERAL (
        SELECT ct.terms, ct.tfs FROM lexical_chunk_terms ct
        WHERE ct.chunk_id = c.chunk_id OFFSET 0) ct
    CROSS JOIN LATERAL codeatlas_chunk_terms(ct.terms, ct.tfs) AS p(term, tf)
    JOIN weights w ON w.term = p.term
    CROSS JOIN corpus
    GROUP BY c.chunk_id, c.score)
SELECT chunk_id, partial, score FROM exact ORDER BY score DESC, chunk_id
