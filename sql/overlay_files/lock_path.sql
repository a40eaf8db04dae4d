-- The file version of the principal's overlay of the path, locked until the transaction ends
-- (no row: none).
SELECT file_version_id FROM overlay_files
WHERE repository_id = %(repository_id)s AND principal_id = %(principal_id)s AND path = %(path)s
FOR UPDATE
