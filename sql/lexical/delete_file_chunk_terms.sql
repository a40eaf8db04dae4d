-- The terms of one file version's chunks, before they are written again.
DELETE FROM lexical_chunk_terms t USING code_chunks c
WHERE c.file_version_id = %(file_version_id)s AND t.chunk_id = c.id
