-- The file versions of the scope's files named so (a path's last part), through the scope's
-- snapshots (their files' primary key) and the principal's working-tree files: the visible files
-- filtered by name afterwards would read the files of every snapshot in the database.
SELECT file_version_id FROM snapshot_files WHERE snapshot_id = ANY(%(scope_snapshots)s)
   AND file_version_id IS NOT NULL AND regexp_replace(path, '^.*/', '') = ANY(%(names)s)
UNION SELECT file_version_id FROM overlay_files WHERE principal_id = %(principal_id)s
   AND regexp_replace(path, '^.*/', '') = ANY(%(names)s)
