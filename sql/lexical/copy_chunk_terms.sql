-- Chunks' terms, one row per chunk: its terms and their frequencies as bytes (in this column
-- order, indexing/lexical_index.py's rows).
COPY lexical_chunk_terms (chunk_id, terms, tfs) FROM STDIN
