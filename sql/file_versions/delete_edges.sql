-- A file version's call edges, before it is stored again.
DELETE FROM code_edges WHERE file_version_id = %(file_version_id)s
