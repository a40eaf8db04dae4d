-- Smaller lexical and chunk indexes (issue 30, docs/lexical.md "Storage"): on the Linux kernel
-- 2.77 M of 3.64 M block rows held a term with at most four postings, each row's header, key
-- and array headers (~150 bytes) costing more than its postings; the content-hash btree held
-- each chunk's 64-character hash a second time.
--
-- 1. A rare term's postings (at most 16 when its repository's blocks were built: a row of its
--    own then costs more than its postings in a shared one) share a row with the other rare
--    terms whose hash ends in the same 17 bits: block -1, `term` those bits
--    (`codeatlas_rare_bucket`), `terms` each posting's own term beside its chunk and impact,
--    chunk ids ascending as differences as in every block. A query reads its term's blocks and
--    its bucket's row, keeping the postings of its term.
CREATE FUNCTION codeatlas_rare_bucket(term bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN term & 131071;

-- The blocks are written into a new table, which replaces the old one: deleting the rare rows in
-- place would leave their space in the table (not even CLUSTER in this transaction frees it).
CREATE TABLE lexical_blocks_next (
    repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE,
    term bigint NOT NULL,
    block integer NOT NULL,
    chunks bigint[] NOT NULL,
    impacts smallint[] NOT NULL,
    terms bigint[]
);
INSERT INTO lexical_blocks_next (repository_id, term, block, chunks, impacts)
SELECT repository_id, term, block, chunks, impacts FROM lexical_blocks
WHERE block > 0 OR cardinality(chunks) > 16
ORDER BY repository_id, term, block;

WITH postings AS (
    SELECT r.repository_id, r.term, t.impact,
           (sum(t.delta) OVER (PARTITION BY r.repository_id, r.term ORDER BY t.i))::bigint
               AS chunk_id
    FROM lexical_blocks r
    CROSS JOIN LATERAL unnest(r.chunks, r.impacts) WITH ORDINALITY AS t(delta, impact, i)
    WHERE r.block = 0 AND cardinality(r.chunks) <= 16),
deltas AS (
    SELECT repository_id, codeatlas_rare_bucket(term) AS bucket, term, chunk_id, impact,
           chunk_id - coalesce(lag(chunk_id) OVER (PARTITION BY repository_id,
                                                   codeatlas_rare_bucket(term)
                                                   ORDER BY chunk_id, term), 0) AS delta
    FROM postings)
INSERT INTO lexical_blocks_next (repository_id, term, block, chunks, impacts, terms)
SELECT repository_id, bucket, -1, array_agg(delta ORDER BY chunk_id, term),
       array_agg(impact ORDER BY chunk_id, term), array_agg(term ORDER BY chunk_id, term)
FROM deltas
GROUP BY repository_id, bucket;

DROP TABLE lexical_blocks;
ALTER TABLE lexical_blocks_next RENAME TO lexical_blocks;
ALTER TABLE lexical_blocks RENAME CONSTRAINT lexical_blocks_next_repository_id_fkey
    TO lexical_blocks_repository_id_fkey;
ALTER TABLE lexical_blocks ADD CONSTRAINT lexical_blocks_pkey
    PRIMARY KEY (repository_id, term, block);

-- 2. Chunks are looked up by content hash only for equality (the vectors step, semantic
--    search's hits, pruning unused vectors): a hash index keeps a 4-byte code per chunk instead
--    of the 65-byte text (251 MB -> 68 MB on the kernel's 2.06 M chunks).
DROP INDEX code_chunks_content_hash_idx;
CREATE INDEX code_chunks_content_hash_idx ON code_chunks USING hash (content_hash);
