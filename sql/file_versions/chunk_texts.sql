-- A file version's chunks with their stored text and symbol names, in file order (what the
-- lexical index tokenizes).
SELECT c.id, codeatlas_chunk_text(c.file_version_id, c.ordinal) AS content, c.symbol_name,
  c.qualified_name
FROM code_chunks c WHERE c.file_version_id = %(file_version_id)s ORDER BY c.id
