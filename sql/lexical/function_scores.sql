-- BM25 of every function of the given file versions with a bug report's terms (the formula
-- and weights of bm25_candidates.sql): retrieval/locate.py scores its leading files' functions.
WITH units AS MATERIALIZED (
    SELECT c.id, c.file_version_id, c.qualified_name, c.symbol_kind, c.symbol_id,
           c.lexical_length AS dl
    FROM code_chunks c
    WHERE c.file_version_id = ANY(%(versions)s) AND c.symbol_kind = ANY(%(kinds)s)),
w AS (SELECT * FROM unnest(%(terms)s::bigint[], %(weights)s::float8[]) AS w(term, w)),
scored AS (
    -- each chunk's postings of the report's terms, through the index of their chunk
    SELECT u.id, sum(w.w * p.tf * (%(k1)s + 1)
               / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * u.dl / %(avgdl)s))) AS score
    FROM units u
    CROSS JOIN LATERAL (SELECT term, tf FROM lexical_postings lp
                        WHERE lp.chunk_id = u.id AND lp.term = ANY(%(terms)s)
                        OFFSET 0) p  -- (not pulled up into a scan of the terms' postings)
    JOIN w ON w.term = p.term
    GROUP BY u.id)
SELECT u.file_version_id, u.qualified_name, u.symbol_kind, s.start_line, s.end_line,
       max(x.score) AS score
FROM scored x JOIN units u ON u.id = x.id JOIN code_symbols s ON s.id = u.symbol_id
GROUP BY u.file_version_id, u.qualified_name, u.symbol_kind, s.start_line, s.end_line
