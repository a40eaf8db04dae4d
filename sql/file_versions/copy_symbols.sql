-- A file version's symbols, one row each in this column order (indexing/storage.py's rows).
COPY code_symbols (id, file_version_id, ordinal, name, qualified_name, kind, signature,
  start_line, end_line, start_byte, end_byte, parent_id) FROM STDIN
