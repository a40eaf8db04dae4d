-- The posting rows of one file version's chunks, before its terms are written again.
DELETE FROM lexical_postings p USING code_chunks c
WHERE c.file_version_id = %(file_version_id)s AND p.chunk_id = c.id
