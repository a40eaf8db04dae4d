-- Smaller BM25 postings (issue 30): on the kernel sample they were 62% of the database, 177
-- bytes per posting (heap 68, term index 78 at 68% leaf density, primary key 32). Retrieval
-- reads the same values as before, so results do not change.
--
-- 1. The term index is read only for a term's best postings (chunk_id, impact); tf and dl are
--    read from the heap through the chunk index (exact rescoring, bug-report localisation).
--    Without them an entry is 40 bytes instead of 48.
DROP INDEX lexical_postings_term_idx;
CREATE INDEX lexical_postings_term_idx
    ON lexical_postings (repository_id, term, impact DESC) INCLUDE (chunk_id);

-- 2. `dl` repeated the chunk's `code_chunks.lexical_length` in each of its ~40 postings; readers
--    take it from the chunk (8 bytes less per heap row, after a rewrite of existing rows:
--    VACUUM FULL lexical_postings).
ALTER TABLE lexical_postings DROP COLUMN dl;

-- 3. The primary key (chunk_id, term) held 16 bytes of key per posting; every reader and the
--    cascade from code_chunks look postings up by chunk, and a chunk's ~40 postings share one
--    deduplicated entry of a plain index on chunk_id (about 6 bytes per posting). A chunk's
--    terms are unique by construction: its postings are written once, from one dict of terms.
ALTER TABLE lexical_postings DROP CONSTRAINT lexical_postings_pkey;
CREATE INDEX lexical_postings_chunk_idx ON lexical_postings (chunk_id);

-- 4. The foreign key to code_chunks checked every posting written (a lookup and a row lock per
--    row: ~40% of the time of writing postings, measured on 200,000 of them); postings are
--    written in the transaction that stores their chunks, from the ids just allocated. What the
--    key did on delete is done once per statement: a chunk's postings go with it, also when the
--    chunk goes by a cascade (a pruned file version, a deleted repository).
ALTER TABLE lexical_postings DROP CONSTRAINT lexical_postings_chunk_id_fkey;
CREATE FUNCTION codeatlas_delete_chunk_postings() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM lexical_postings p USING gone g WHERE p.chunk_id = g.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER code_chunks_delete_postings AFTER DELETE ON code_chunks
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION codeatlas_delete_chunk_postings();
