-- A file version's chunk texts, a page of consecutive chunks per row (indexing/storage.py).
COPY chunk_text_pages (file_version_id, page, texts) FROM STDIN
