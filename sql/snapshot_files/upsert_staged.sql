-- The staged file list into the snapshot: a path keeps its file version unless now skipped.
INSERT INTO snapshot_files (snapshot_id, path, blob_sha, language, size_bytes, skip_reason)
SELECT %(snapshot_id)s, path, blob_sha, language, size_bytes, skip_reason
FROM staged_files
ON CONFLICT (snapshot_id, path) DO UPDATE SET
  blob_sha = EXCLUDED.blob_sha,
  language = EXCLUDED.language,
  size_bytes = EXCLUDED.size_bytes,
  skip_reason = EXCLUDED.skip_reason,
  file_version_id = CASE WHEN EXCLUDED.skip_reason IS NULL
    THEN snapshot_files.file_version_id END
