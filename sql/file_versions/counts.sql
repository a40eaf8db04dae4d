-- The symbols and chunks of one file version.
SELECT (SELECT count(*) FROM code_symbols WHERE file_version_id = %(fv)s) AS symbols,
       (SELECT count(*) FROM code_chunks WHERE file_version_id = %(fv)s) AS chunks
