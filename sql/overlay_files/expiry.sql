-- When the principal's overlay of the path expires (no row: it has none).
SELECT expires_at AS at FROM overlay_files
WHERE repository_id = %(repository_id)s AND principal_id = %(principal_id)s AND path = %(path)s
