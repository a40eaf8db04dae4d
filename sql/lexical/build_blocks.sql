-- The blocks of a repository's postings (sql/migrations/013), built from the chunk terms of the
-- file versions listed in the temporary table `built_versions`: each term's postings ranked by
-- impact (BM25's term factor at a nominal average length), cut into blocks
-- (`codeatlas_posting_block`), chunk ids as differences in ascending order, impacts in units of
-- 1/10,000. Parameters: repo, k1, b, nominal. Returns the postings written.
WITH written AS (
INSERT INTO lexical_blocks (repository_id, term, block, chunks, impacts)
SELECT %(repo)s, term, block, array_agg(delta ORDER BY chunk_id), array_agg(impact ORDER BY chunk_id)
FROM (
    SELECT term, block, chunk_id, impact,
           chunk_id - coalesce(lag(chunk_id) OVER (PARTITION BY term, block ORDER BY chunk_id), 0)
               AS delta
    FROM (
        SELECT term, chunk_id, impact,
               codeatlas_posting_block(row_number() OVER (PARTITION BY term
                                                          ORDER BY impact DESC, chunk_id) - 1)
                   AS block
        FROM (
            SELECT p.term, c.id AS chunk_id,
                   round(10000 * p.tf * (%(k1)s + 1) / (p.tf + %(k1)s * (1 - %(b)s + %(b)s
                         * c.lexical_length / %(nominal)s)))::smallint AS impact
            FROM built_versions v
            JOIN code_chunks c ON c.file_version_id = v.id
            JOIN lexical_chunk_terms t ON t.chunk_id = c.id
            CROSS JOIN LATERAL unnest(t.terms, t.tfs) AS p(term, tf)) postings) ranked) deltas
GROUP BY term, block
RETURNING cardinality(chunks) AS n)
SELECT coalesce(sum(n), 0) AS postings FROM written
