-- Files of the snapshot already parsed at this parser version.
SELECT count(*) AS n
FROM snapshot_files sf JOIN file_versions fv ON fv.id = sf.file_version_id
WHERE sf.snapshot_id = %(snapshot_id)s
  AND fv.parser_version = %(parser_version)s
  AND fv.parsed_at IS NOT NULL
