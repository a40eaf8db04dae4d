-- Smaller first blocks (docs/lexical.md "Storage" and "Query latency"). A query reads a term's
-- best `n` postings in each repository of its scope by decoding the blocks that hold ranks below
-- `n`, and the first block held 128: over 247 small repositories a question's budget is shared
-- out in a few postings per (term, repository), yet each of ~1,600 pairs decoded up to 128
-- (140,000 postings decoded for the 20,000 read, ~150 ms). Blocks now hold 32, 64, 128, 256 and
-- 512 postings, then 1,024 each: a small share decodes at most 32, and a term's best 4,000 take
-- eight blocks (seven before). The same postings in the same order: existing blocks are
-- decoded, ranked as build_blocks.sql ranks them (impact, then chunk) and cut again; the rare
-- terms' shared rows (block -1) stay as they are.
CREATE OR REPLACE FUNCTION codeatlas_posting_block(rank bigint) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN rank < 32 THEN 0 WHEN rank < 96 THEN 1 WHEN rank < 224 THEN 2
            WHEN rank < 480 THEN 3 WHEN rank < 992 THEN 4 ELSE 5 + (rank - 992) / 1024 END;

-- written into a new table that replaces the old one, as sql/migrations/014 did
CREATE TABLE lexical_blocks_next (
    repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE,
    term bigint NOT NULL,
    block integer NOT NULL,
    chunks bigint[] NOT NULL,
    impacts smallint[] NOT NULL,
    terms bigint[]
);
INSERT INTO lexical_blocks_next (repository_id, term, block, chunks, impacts, terms)
SELECT repository_id, term, block, chunks, impacts, terms FROM lexical_blocks WHERE block < 0
ORDER BY repository_id, term;

WITH postings AS (
    SELECT b.repository_id, b.term, t.impact,
           (sum(t.delta) OVER (PARTITION BY b.repository_id, b.term, b.block ORDER BY t.i))::bigint
               AS chunk_id
    FROM lexical_blocks b
    CROSS JOIN LATERAL unnest(b.chunks, b.impacts) WITH ORDINALITY AS t(delta, impact, i)
    WHERE b.block >= 0),
cut AS (
    SELECT repository_id, term, chunk_id, impact,
           codeatlas_posting_block(row_number() OVER (PARTITION BY repository_id, term
                                                      ORDER BY impact DESC, chunk_id) - 1)
               AS block
    FROM postings),
deltas AS (
    SELECT repository_id, term, block, chunk_id, impact,
           chunk_id - coalesce(lag(chunk_id) OVER (PARTITION BY repository_id, term, block
                                                   ORDER BY chunk_id), 0) AS delta
    FROM cut)
INSERT INTO lexical_blocks_next (repository_id, term, block, chunks, impacts)
SELECT repository_id, term, block, array_agg(delta ORDER BY chunk_id),
       array_agg(impact ORDER BY chunk_id)
FROM deltas
GROUP BY repository_id, term, block
ORDER BY repository_id, term, block;

DROP TABLE lexical_blocks;
ALTER TABLE lexical_blocks_next RENAME TO lexical_blocks;
ALTER TABLE lexical_blocks RENAME CONSTRAINT lexical_blocks_next_repository_id_fkey
    TO lexical_blocks_repository_id_fkey;
ALTER TABLE lexical_blocks ADD CONSTRAINT lexical_blocks_pkey
    PRIMARY KEY (repository_id, term, block);
