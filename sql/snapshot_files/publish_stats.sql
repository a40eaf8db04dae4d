-- The statistics a published snapshot keeps: its files, the indexed ones, chunks and symbols.
SELECT count(*) AS files, count(sf.file_version_id) AS indexed_files,
  (SELECT count(*) FROM code_chunks c JOIN snapshot_files s2
     ON s2.file_version_id = c.file_version_id WHERE s2.snapshot_id = %(snapshot_id)s) AS chunks,
  (SELECT count(*) FROM code_symbols c JOIN snapshot_files s2
     ON s2.file_version_id = c.file_version_id WHERE s2.snapshot_id = %(snapshot_id)s) AS symbols
FROM snapshot_files sf WHERE sf.snapshot_id = %(snapshot_id)s
