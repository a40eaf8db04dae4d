-- A new snapshot's file list from its base snapshot's: every path that the diff between the
-- two commits neither changes (staged_files) nor removes (gone), with its skip reason and its
-- file version (the base is published at this parser version: each is parsed and final).
INSERT INTO snapshot_files
  (snapshot_id, path, blob_sha, language, size_bytes, skip_reason, file_version_id)
SELECT %(snapshot_id)s, b.path, b.blob_sha, b.language, b.size_bytes, b.skip_reason,
  b.file_version_id
FROM snapshot_files b
WHERE b.snapshot_id = %(base_id)s
  AND b.path <> ALL(%(gone)s::text[])
  AND NOT EXISTS (SELECT 1 FROM staged_files s WHERE s.path = b.path)
ON CONFLICT (snapshot_id, path) DO NOTHING
