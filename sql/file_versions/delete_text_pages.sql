-- A file version's pages of chunk texts, before it is stored again.
DELETE FROM chunk_text_pages WHERE file_version_id = %(file_version_id)s
