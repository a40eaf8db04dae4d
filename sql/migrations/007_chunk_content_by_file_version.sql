-- Semantic search of a small scope matches its nearest vectors to the scope's visible chunks by
-- content hash (retrieval/semantic.py). With the content hash and the chunk id in the
-- (file_version_id, ordinal) index, the visible chunks' hashes are read by an index-only scan
-- instead of from the chunk rows (docs/lexical.md). Same key and uniqueness.
ALTER TABLE code_chunks
    DROP CONSTRAINT code_chunks_file_version_id_ordinal_key,
    ADD CONSTRAINT code_chunks_file_version_id_ordinal_key
        UNIQUE (file_version_id, ordinal) INCLUDE (content_hash, id);
