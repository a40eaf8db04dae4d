-- A file version's call edges, one row each in this column order (indexing/storage.py's rows).
COPY code_edges (file_version_id, ordinal, caller_symbol_id, callee_name, qualifier, line, kind)
FROM STDIN
