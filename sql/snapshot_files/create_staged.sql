-- The commit's file list as read from git, staged for the statements that merge it into the
-- snapshot's (sql/snapshot_files/upsert_staged.sql and the others reading staged_files).
CREATE TEMP TABLE staged_files (path text, blob_sha text, language text, size_bytes bigint,
  skip_reason text) ON COMMIT DROP
