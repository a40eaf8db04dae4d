-- The staged file list, one row per path in this column order (indexing/snapshot_files.py).
COPY staged_files (path, blob_sha, language, size_bytes, skip_reason) FROM STDIN
