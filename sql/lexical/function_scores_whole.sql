-- BM25 of every function of the given file versions as one document (its chunks are disjoint
-- windows of it: their term frequencies and lengths add up), with a bug report's terms:
-- retrieval/locate.py ranks a leading file's functions by it.
WITH units AS MATERIALIZED (
    SELECT c.id, c.file_version_id, c.symbol_id, c.lexical_length
    FROM code_chunks c
    WHERE c.file_version_id = ANY(%(versions)s) AND c.symbol_kind = ANY(%(kinds)s)),
lengths AS (
    SELECT symbol_id, sum(lexical_length)::float8 AS dl FROM units GROUP BY symbol_id),
w AS (SELECT * FROM unnest(%(terms)s::bigint[], %(weights)s::float8[]) AS w(term, w)),
tf AS (
    SELECT u.symbol_id, p.term, sum(p.tf)::float8 AS tf
    FROM units u
    CROSS JOIN LATERAL (SELECT term, tf FROM lexical_postings lp
                        WHERE lp.chunk_id = u.id AND lp.term = ANY(%(terms)s)
                        OFFSET 0) p
    GROUP BY u.symbol_id, p.term),
scored AS (
    SELECT tf.symbol_id, sum(w.w * tf.tf * (%(k1)s + 1)
               / (tf.tf + %(k1)s * (1 - %(b)s + %(b)s * l.dl / %(avgdl)s))) AS score
    FROM tf JOIN w ON w.term = tf.term JOIN lengths l ON l.symbol_id = tf.symbol_id
    GROUP BY tf.symbol_id)
SELECT s.file_version_id, s.qualified_name, s.kind AS symbol_kind, s.start_line, s.end_line,
       x.score
FROM scored x JOIN code_symbols s ON s.id = x.symbol_id
