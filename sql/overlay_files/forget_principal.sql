-- Drop every overlay of the principal, in every repository.
DELETE FROM overlay_files WHERE principal_id = %(principal_id)s RETURNING file_version_id
