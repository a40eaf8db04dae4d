-- Files whose blob was parsed before at this parser version need no new parse (of the staged
-- paths only: a file list copied from a published snapshot has its file versions already).
UPDATE snapshot_files sf SET file_version_id = fv.id
FROM file_versions fv
WHERE sf.snapshot_id = %(snapshot_id)s
  AND sf.path IN (SELECT path FROM staged_files)
  AND sf.skip_reason IS NULL
  AND sf.file_version_id IS DISTINCT FROM fv.id
  AND fv.repository_id = %(repository_id)s
  AND fv.blob_sha = sf.blob_sha
  AND fv.language = sf.language
  AND fv.parser_version = %(parser_version)s
  AND fv.parsed_at IS NOT NULL
