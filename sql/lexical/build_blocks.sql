-- The blocks of a repository's postings (sql/migrations/013 and 014), built from the chunk terms
-- of the file versions listed in the temporary table `built_versions`: each term's postings
-- ranked by impact (BM25's term factor at a nominal average length), cut into blocks
-- (`codeatlas_posting_block`); a term with at most `rare` postings shares block -1 of its bucket
-- (`codeatlas_rare_bucket`) with the other rare terms there, its term beside each posting.
-- Chunk ids as differences in ascending order, impacts in units of 1/10,000. Only the terms of
-- `part` of `parts` (by their bucket: a bucket's terms are in one part).
-- Parameters: repo, k1, b, nominal, rare, part, parts. Returns the postings written.
WITH written AS (
INSERT INTO lexical_blocks (repository_id, term, block, chunks, impacts, terms)
SELECT %(repo)s, key, block, array_agg(delta ORDER BY chunk_id, term),
       array_agg(impact ORDER BY chunk_id, term),
       CASE WHEN block < 0 THEN array_agg(term ORDER BY chunk_id, term) END
FROM (
    SELECT key, block, term, chunk_id, impact,
           chunk_id - coalesce(lag(chunk_id) OVER (PARTITION BY key, block
                                                   ORDER BY chunk_id, term), 0) AS delta
    FROM (
        SELECT term, chunk_id, impact,
               CASE WHEN postings <= %(rare)s THEN codeatlas_rare_bucket(term) ELSE term END
                   AS key,
               CASE WHEN postings <= %(rare)s THEN -1 ELSE codeatlas_posting_block(rank) END
                   AS block
        FROM (
            SELECT term, chunk_id, impact,
                   row_number() OVER (PARTITION BY term ORDER BY impact DESC, chunk_id) - 1
                       AS rank,
                   count(*) OVER (PARTITION BY term) AS postings
            FROM (
                SELECT p.term, c.id AS chunk_id,
                       round(10000 * p.tf * (%(k1)s + 1) / (p.tf + %(k1)s * (1 - %(b)s + %(b)s
                             * c.lexical_length / %(nominal)s)))::smallint AS impact
                FROM built_versions v
                JOIN code_chunks c ON c.file_version_id = v.id
                JOIN lexical_chunk_terms t ON t.chunk_id = c.id
                CROSS JOIN LATERAL codeatlas_chunk_terms(t.terms, t.tfs) AS p(term, tf)
                WHERE %(parts)s = 1  -- a whole build: no part to pick
                   OR (codeatlas_rare_bucket(p.term) * %(parts)s) >> 17 = %(part)s) postings) ranked)
        keyed)
    deltas
GROUP BY key, block
RETURNING cardinality(chunks) AS n)
SELECT coalesce(sum(n), 0) AS postings FROM written
