-- Per content hash of the snapshot, the chunk whose text is embedded: its first path, then its
-- first qualified name.
SELECT DISTINCT ON (c.content_hash) c.content_hash,
    codeatlas_chunk_text(c.file_version_id, c.ordinal) AS content, c.qualified_name, sf.path
FROM snapshot_files sf JOIN code_chunks c ON c.file_version_id = sf.file_version_id
WHERE sf.snapshot_id = %(snapshot_id)s AND c.content_hash = ANY(%(hashes)s)
ORDER BY c.content_hash, sf.path, c.qualified_name
