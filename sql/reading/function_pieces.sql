-- The pieces of functions split into several chunks, with their texts, in line order: a long
-- doc comment splits an accessor into pieces, and search's thin test reads the whole function.
SELECT c.symbol_id, c.start_line, c.end_line, codeatlas_chunk_text(c.file_version_id, c.ordinal) AS content
FROM code_chunks c
WHERE c.symbol_id = ANY(%(ids)s)
ORDER BY c.symbol_id, c.start_line, c.piece
