-- The chunks of the symbol and of the symbols nested in it, in line order, with their texts.
WITH RECURSIVE tree AS (
    SELECT id FROM code_symbols WHERE id = %(id)s
    UNION ALL
    SELECT s.id FROM code_symbols s JOIN tree t ON s.parent_id = t.id)
SELECT c.start_line, c.end_line, codeatlas_chunk_text(c.file_version_id, c.ordinal) AS content
FROM code_chunks c
WHERE c.file_version_id = %(fv)s AND c.symbol_id IN (SELECT id FROM tree)
ORDER BY c.start_line, c.piece
