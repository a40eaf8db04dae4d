-- The file version of a blob in a language at a parser version, created once.
INSERT INTO file_versions (repository_id, blob_sha, language, parser_version, size_bytes)
VALUES (%(repository_id)s, %(blob_sha)s, %(language)s, %(parser_version)s, %(size)s)
ON CONFLICT DO NOTHING
