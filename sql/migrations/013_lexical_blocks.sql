-- BM25 postings in blocks (issue 30, docs/lexical.md "Storage"): a row per posting cost ~133
-- bytes (heap, term index, chunk index) and was 76% of the Linux kernel's index, 13x its source.
--
-- 1. A chunk's terms with their field-weighted frequencies, one row per chunk: what exact
--    rescoring, bug-report localisation and the document-frequency deltas read by chunk. `tf`
--    is an integer (whole counts times whole field weights), capped at 32,767, where BM25's
--    term factor is within 1e-4 of its limit.
CREATE TABLE lexical_chunk_terms (
    chunk_id bigint PRIMARY KEY,
    terms bigint[] NOT NULL,
    tfs smallint[] NOT NULL
);
INSERT INTO lexical_chunk_terms (chunk_id, terms, tfs)
SELECT chunk_id, array_agg(term ORDER BY term), array_agg(least(round(tf), 32767)::smallint ORDER BY term)
FROM lexical_postings GROUP BY chunk_id;

-- 2. A term's postings in a repository, best impact first, cut into blocks: the first of 128
--    postings, then 256, 512 and 1,024 each (a rare term's few postings are one small row; a
--    query reading a common term's best 4,000 decodes five blocks). Inside a block the chunk
--    ids are in order, each stored as its difference from the one before (small numbers, which
--    the TOAST compression of a full block packs), and the impacts in units of 1/10,000.
--    What is read is what the rows gave: a term's best postings by impact.
CREATE FUNCTION codeatlas_posting_block(rank bigint) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN rank < 128 THEN 0 WHEN rank < 384 THEN 1 WHEN rank < 896 THEN 2
            ELSE 3 + (rank - 896) / 1024 END;

CREATE TABLE lexical_blocks (
    repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE,
    term bigint NOT NULL,
    block integer NOT NULL,
    chunks bigint[] NOT NULL,
    impacts smallint[] NOT NULL,
    PRIMARY KEY (repository_id, term, block)
);

-- 3. How many postings a repository's blocks hold, and how many were written as rows since
--    they were built: the rows (`lexical_postings`, the postings of file versions published
--    after the build, and of working-tree overlays) are folded into new blocks when they pass a
--    share of them (indexing/lexical_index.py).
CREATE TABLE lexical_blocks_built (
    repository_id bigint PRIMARY KEY REFERENCES repositories ON DELETE CASCADE,
    block_postings bigint NOT NULL,
    row_postings bigint NOT NULL DEFAULT 0,
    built_at timestamptz NOT NULL DEFAULT now()
);

-- 4. A file version's postings are in its repository's blocks or rows ("posted") from its
--    snapshot's publishing on (or an overlay's indexing); before, only its chunk terms exist.
ALTER TABLE file_versions ADD COLUMN lexical_posted boolean NOT NULL DEFAULT false;
CREATE INDEX file_versions_unposted_idx ON file_versions (repository_id)
    WHERE NOT lexical_posted AND lexical_version IS NOT NULL;

-- 5. The postings stored as rows move into blocks, and the rows go.
INSERT INTO lexical_blocks (repository_id, term, block, chunks, impacts)
SELECT repository_id, term, block, array_agg(delta ORDER BY chunk_id),
       array_agg(impact ORDER BY chunk_id)
FROM (
    SELECT repository_id, term, block, chunk_id, impact,
           chunk_id - coalesce(lag(chunk_id) OVER (PARTITION BY repository_id, term, block
                                                   ORDER BY chunk_id), 0) AS delta
    FROM (
        SELECT repository_id, term, chunk_id, round(impact * 10000)::smallint AS impact,
               codeatlas_posting_block(row_number() OVER (PARTITION BY repository_id, term
                                                          ORDER BY impact DESC, chunk_id) - 1)
                   AS block
        FROM lexical_postings) ranked) deltas
GROUP BY repository_id, term, block;
INSERT INTO lexical_blocks_built (repository_id, block_postings)
SELECT r.id, coalesce((SELECT count(*) FROM lexical_postings p WHERE p.repository_id = r.id), 0)
FROM repositories r;
UPDATE file_versions SET lexical_posted = true WHERE lexical_version IS NOT NULL;
TRUNCATE lexical_postings;

-- 6. A deleted chunk's terms go with it, as its posting rows do (a block keeps a deleted chunk's
--    id until its next build: readers join the chunk).
CREATE OR REPLACE FUNCTION codeatlas_delete_chunk_postings() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM lexical_postings p USING gone g WHERE p.chunk_id = g.id;
    DELETE FROM lexical_chunk_terms t USING gone g WHERE t.chunk_id = g.id;
    RETURN NULL;
END
$$;
