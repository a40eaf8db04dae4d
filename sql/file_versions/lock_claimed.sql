-- The file version claimed (sql/file_versions/claim.sql), locked until the transaction ends.
SELECT id, parsed_at FROM file_versions
WHERE repository_id = %(repository_id)s AND blob_sha = %(blob_sha)s
  AND language = %(language)s AND parser_version = %(parser_version)s
FOR UPDATE
