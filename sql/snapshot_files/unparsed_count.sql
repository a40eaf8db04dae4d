-- Indexable files of the snapshot whose file version is not parsed, not at this parser
-- version, or not in the lexical index at this lexical version (publishing waits for none).
SELECT count(*) AS n FROM snapshot_files sf
LEFT JOIN file_versions fv ON fv.id = sf.file_version_id
WHERE sf.snapshot_id = %(snapshot_id)s AND sf.skip_reason IS NULL
  AND (fv.parsed_at IS NULL OR fv.parser_version <> %(parser_version)s
       OR fv.lexical_version IS DISTINCT FROM %(lexical_version)s)
