-- BM25 of whole files (a file's chunks are disjoint windows of it: their term frequencies and
-- lengths add up to the file's) with a bug report's terms, for the given file versions only:
-- retrieval/locate.py reads it as one more piece of evidence per candidate file. avgdl is the
-- candidates' mean length, so the length normalisation is relative to the files compared.
WITH chunks AS MATERIALIZED (
    SELECT c.id, c.file_version_id, c.lexical_length
    FROM code_chunks c WHERE c.file_version_id = ANY(%(versions)s)),
lengths AS (
    SELECT file_version_id, sum(lexical_length)::float8 AS dl FROM chunks GROUP BY file_version_id),
avg AS (SELECT greatest(avg(dl), 1.0) AS avgdl FROM lengths),
w AS (SELECT * FROM unnest(%(terms)s::bigint[], %(weights)s::float8[]) AS w(term, w)),
tf AS (
    SELECT c.file_version_id, p.term, sum(p.tf)::float8 AS tf
    FROM chunks c
    CROSS JOIN LATERAL (SELECT term, tf FROM lexical_postings lp
                        WHERE lp.chunk_id = c.id AND lp.term = ANY(%(terms)s)
                        OFFSET 0) p  -- (through the chunk index, as function_scores.sql)
    GROUP BY c.file_version_id, p.term)
SELECT tf.file_version_id,
       sum(w.w * tf.tf * (%(k1)s + 1)
           / (tf.tf + %(k1)s * (1 - %(b)s + %(b)s * l.dl / avg.avgdl))) AS score
FROM tf JOIN w ON w.term = tf.term JOIN lengths l ON l.file_version_id = tf.file_version_id
CROSS JOIN avg
GROUP BY tf.file_version_id
