-- Smaller chunk rows (issue 30, docs/architecture.md "Chunk text"): the chunk text was 2.07x the
-- kernel's source in the heap, uncompressed, because PostgreSQL compresses a value only in a row
-- over ~2 kB and most chunks are a few hundred bytes.
--
-- 1. A file version's chunk texts, 32 consecutive chunks (by ordinal) to a row: a row of
--    several kilobytes, which TOAST compresses (about half the size on C, PHP and Python). A
--    chunk reads its text as `codeatlas_chunk_text(file_version_id, ordinal)`, decompressing the
--    ~32 texts of its row; readers of a whole file version's texts scan its rows.
CREATE TABLE chunk_text_pages (
    file_version_id bigint NOT NULL REFERENCES file_versions ON DELETE CASCADE,
    page integer NOT NULL,
    texts text[] NOT NULL,
    PRIMARY KEY (file_version_id, page)
);
INSERT INTO chunk_text_pages (file_version_id, page, texts)
SELECT file_version_id, ordinal / 32, array_agg(content ORDER BY ordinal)
FROM code_chunks GROUP BY file_version_id, ordinal / 32
ORDER BY file_version_id, ordinal / 32;

CREATE FUNCTION codeatlas_chunk_text(file_version_id bigint, ordinal integer) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
RETURN (
    SELECT p.texts[ordinal % 32 + 1] FROM chunk_text_pages p
    WHERE p.file_version_id = codeatlas_chunk_text.file_version_id AND p.page = ordinal / 32);

-- 2. The content hash keeps 128 of sha256's bits (32 hex characters instead of 64): it names a
--    chunk's content for the shared vectors and is stored in the chunk row, its key's covering
--    columns and the vectors' key. Existing hashes are cut the same way the code now cuts them,
--    so stored vectors stay found. Changing the column's type with USING rewrites both tables,
--    which also gives back the dropped text's space and rebuilds their indexes.
ALTER TABLE code_chunks DROP COLUMN content;
ALTER TABLE code_chunks ALTER COLUMN content_hash TYPE text USING left(content_hash, 32);
ALTER TABLE chunk_embeddings ALTER COLUMN content_hash TYPE text USING left(content_hash, 32);
