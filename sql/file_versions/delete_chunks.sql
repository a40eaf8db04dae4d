-- A file version's chunks, before it is stored again.
DELETE FROM code_chunks WHERE file_version_id = %(file_version_id)s
