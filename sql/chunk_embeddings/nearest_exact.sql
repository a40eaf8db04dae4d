-- The nearest vectors of a small scope, scanned exactly: the scope's visible chunks (a few
-- thousand; an index-only scan of code_chunks: migration 007), their contents' vectors found by
-- the primary key (model, content), the nearest of them.
-- A template (retrieval/semantic.py composes it): its fields take the constant fragments of the
-- visible files and the candidate columns, and the distance and model written as the partial
-- HNSW index is (literals, not parameters). No field names in comments: they would be filled.
WITH {visible_files}, visible AS MATERIALIZED (
    SELECT f.*, c.id AS chunk_id, c.content_hash
    FROM files f JOIN code_chunks c ON c.file_version_id = f.file_version_id
    WHERE f.repository_id = ANY(%(repo_ids)s)),
nearest AS MATERIALIZED (
    SELECT e.content_hash, {distance} AS distance
    FROM chunk_embeddings e WHERE e.embedding_model = {model}
      AND e.content_hash = ANY(ARRAY(SELECT DISTINCT content_hash FROM visible))
    ORDER BY {distance} LIMIT %(candidates)s)
SELECT {candidate_columns}, n.distance
FROM nearest n JOIN visible f ON f.content_hash = n.content_hash
JOIN code_chunks c ON c.id = f.chunk_id
LEFT JOIN code_symbols s ON s.id = c.symbol_id
ORDER BY n.distance, c.id LIMIT %(limit)s
