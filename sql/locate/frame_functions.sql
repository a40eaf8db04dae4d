-- The functions of the files a stack trace's frames name.
SELECT file_version_id, name, qualified_name, kind, start_line, end_line
FROM code_symbols WHERE file_version_id = ANY(%(ids)s) AND kind = ANY(%(kinds)s)
