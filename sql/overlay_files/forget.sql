-- Drop the principal's overlay of the path in the repository (a NULL path: all of them there).
DELETE FROM overlay_files
WHERE principal_id = %(principal_id)s AND repository_id = %(repository_id)s
  AND (%(path)s::text IS NULL OR path = %(path)s)
RETURNING path, file_version_id
