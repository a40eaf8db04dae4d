-- BM25 of every function of the given file versions with a bug report's terms (the formula
-- and weights of bm25_candidates.sql): retrieval/locate.py scores its leading files' functions.
WITH units AS MATERIALIZED (
    SELECT c.id, c.file_version_id, c.qualified_name, c.symbol_kind, c.symbol_id,
           c.lexical_length AS dl
    FROM code_chunks c
    WHERE c.file_version_id = ANY(%(versions)s) AND c.symbol_kind = ANY(%(kinds)s)),
w AS (SELECT * FROM unnest(%(terms)s::bigint[], %(weights)s::float8[]) AS w(term, w)),
scored AS (
    -- each chunk's terms of the report, from its row of chunk terms by its key
    SELECT u.id, sum(w.w * p.tf * (%(k1)s + 1)
               / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * u.dl / %(avgdl)s))) AS score
    FROM units u
    CROSS JOIN LATERAL (SELECT ct.terms, ct.tfs FROM lexical_chunk_terms ct
                        WHERE ct.chunk_id = u.id OFFSET 0) ct  -- (not a scan of every chunk's)
    CROSS JOIN LATERAL codeatlas_chunk_terms(ct.terms, ct.tfs) AS p(term, tf)
    JOIN w ON w.term = p.term
    GROUP BY u.id)
SELECT u.file_version_id, u.qualified_name, u.symbol_kind, s.start_line, s.end_line,
       max(x.score) AS score
FROM scored x JOIN units u ON u.id = x.id JOIN code_symbols s ON s.id = u.symbol_id
GROUP BY u.file_version_id, u.qualified_name, u.symbol_kind, s.start_line, s.end_line
