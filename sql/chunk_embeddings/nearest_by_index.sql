-- The nearest vectors through the model's HNSW index. Vectors are shared by content across
-- repositories (migration 009): the graph walk keeps only contents some chunk of the scope's
-- repositories holds (a per-row check: OFFSET 0 keeps the planner from turning it into a join
-- that would bypass the index), then the chunks holding them are narrowed to the visible ones,
-- so grants still decide.
-- A template (retrieval/semantic.py composes it): its fields take the constant fragments of the
-- visible files and the candidate columns, and the distance and model written as the partial
-- HNSW index is (literals, not parameters). No field names in comments: they would be filled.
WITH nearest AS MATERIALIZED (
    SELECT e.content_hash, {distance} AS distance
    FROM chunk_embeddings e
    WHERE e.embedding_model = {model} AND EXISTS (
        SELECT 1 FROM code_chunks c JOIN file_versions fv ON fv.id = c.file_version_id
        WHERE c.content_hash = e.content_hash AND fv.repository_id = ANY(%(repo_ids)s)
        OFFSET 0)
    ORDER BY {distance} LIMIT %(candidates)s),
hits AS MATERIALIZED (
    SELECT c.id AS chunk_id, c.file_version_id, c.content_hash
    FROM code_chunks c
    WHERE c.content_hash = ANY(ARRAY(SELECT DISTINCT content_hash FROM nearest))),
{visible_files}
SELECT {candidate_columns}, n.distance
FROM hits h JOIN files f ON f.file_version_id = h.file_version_id
  AND f.repository_id = ANY(%(repo_ids)s)
JOIN nearest n ON n.content_hash = h.content_hash
JOIN code_chunks c ON c.id = h.chunk_id
LEFT JOIN code_symbols s ON s.id = c.symbol_id
ORDER BY n.distance, c.id LIMIT %(limit)s
