-- A file version's chunks, one row each in this column order (indexing/storage.py's rows).
COPY code_chunks (id, file_version_id, ordinal, symbol_id, symbol_name, qualified_name,
  symbol_kind, start_line, end_line, start_byte, end_byte, piece, piece_count, content_hash,
  lexical_length) FROM STDIN
