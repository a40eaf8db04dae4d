-- The imports of the given files (file version ids) that import one of the names: the names'
-- imports first, through the index on the name, then the files among them. Given the files'
-- array as an index condition too, the planner (its generic plan above all) reads every edge
-- of each file through the file-version index instead, all of a kernel file's hundreds.
WITH named AS MATERIALIZED (
    SELECT file_version_id, callee_name, qualifier
    FROM code_edges WHERE kind = 'import' AND callee_name = ANY(%(names)s))
SELECT * FROM named WHERE file_version_id = ANY(%(files)s)
