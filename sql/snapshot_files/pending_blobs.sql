-- Blobs of the snapshot not parsed yet at this parser version, one row per blob and language.
SELECT sf.blob_sha, sf.language, max(sf.size_bytes) AS size, min(sf.path) AS path
FROM snapshot_files sf LEFT JOIN file_versions fv ON fv.id = sf.file_version_id
WHERE sf.snapshot_id = %(snapshot_id)s
  AND sf.skip_reason IS NULL
  AND (fv.id IS NULL OR fv.parsed_at IS NULL OR fv.parser_version <> %(parser_version)s)
GROUP BY sf.blob_sha, sf.language
ORDER BY min(sf.path)
