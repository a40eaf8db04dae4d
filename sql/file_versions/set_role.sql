-- One file version's role, read from its content.
UPDATE file_versions SET role = %(role)s WHERE id = %(id)s
