-- File versions, with their chunks, symbols, edges and postings (cascades).
DELETE FROM file_versions WHERE id = ANY(%(ids)s)
