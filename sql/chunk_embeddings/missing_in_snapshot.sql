-- Chunk contents of the snapshot with no vector for the model yet (vectors are shared by
-- content across repositories: a content another repository embedded counts), with lengths:
-- the chunk's bytes in its file (a piece's header line aside), read from the chunk row instead
-- of its text, which lies compressed in its page with 31 others (sql/migrations/015).
SELECT DISTINCT ON (c.content_hash) c.content_hash, c.end_byte - c.start_byte AS length
FROM snapshot_files sf JOIN code_chunks c ON c.file_version_id = sf.file_version_id
WHERE sf.snapshot_id = %(snapshot_id)s
  AND NOT EXISTS (
    SELECT 1 FROM chunk_embeddings e
    WHERE e.embedding_model = %(model)s
      AND e.content_hash = c.content_hash)
