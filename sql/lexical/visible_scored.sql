-- The scored candidates (chunk ids and scores) that the scope may see, as candidate rows, best
-- first. A template (retrieval/lexical.py fills it with Python's str.format, constant fragments
-- only: the visible files and the candidate columns): no field names in comments.
WITH x AS MATERIALIZED (
    SELECT c.id, c.file_version_id, x.score
    FROM unnest(%(ids)s::bigint[], %(scores)s::float8[]) AS x(chunk_id, score)
    JOIN code_chunks c ON c.id = x.chunk_id),
{visible_files}
SELECT {candidate_columns}, x.score AS rank
FROM x JOIN files f ON f.file_version_id = x.file_version_id
JOIN code_chunks c ON c.id = x.id
LEFT JOIN code_symbols s ON s.id = c.symbol_id
ORDER BY rank DESC, c.id LIMIT %(limit)s
