-- find_callers of a hot name (issue 30: the kernel's kfree has ~11,000 calls): the call edges
-- statement counts a name's edges per file version and reads the rows of only the first files'
-- edges (sql/graph/call_edges.sql).
--
-- 1. The index on the callee's name carries the file version: the count per file is an
--    index-only scan (12,003 edges of a generated kfree: 37 index pages instead of 1,284 heap
--    pages), and the first files' edges are found by name and file. It still serves every
--    lookup by name and kind (the imports of the callers' files).
DROP INDEX code_edges_callee_idx;
CREATE INDEX code_edges_callee_idx ON code_edges (callee_name, kind, file_version_id);

-- 2. The primary key (file_version_id, ordinal) held a key per edge; the edges are read and
--    deleted by file version only, and a file's edges share one deduplicated entry of a plain
--    index (on the kernel sample: 4.5 MB -> 1.0 MB, which more than pays for the wider index
--    above, 2.0 -> 3.6 MB). A file version's ordinals are unique by construction: its edges are
--    written once, numbered from one list, after its old ones are deleted (indexing/storage.py).
ALTER TABLE code_edges DROP CONSTRAINT code_edges_pkey;
CREATE INDEX code_edges_file_version_idx ON code_edges (file_version_id);

-- 3. The visible files among those holding a name's edges are found by file version in the
--    scope's snapshots: with the snapshot in the index, only the scope's snapshot rows are read
--    from the heap (4,000 instead of 12,000 for the generated kfree in three snapshots; a
--    repository keeps several). As small as the index it replaces (a file version listed by
--    several snapshots was one deduplicated entry there, a few entries here): 1.17 -> 1.15 MB.
DROP INDEX snapshot_files_file_version_idx;
CREATE INDEX snapshot_files_file_version_idx ON snapshot_files (file_version_id, snapshot_id);
