-- A file version's symbols, before it is stored again.
DELETE FROM code_symbols WHERE file_version_id = %(file_version_id)s
