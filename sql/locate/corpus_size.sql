-- The repositories' lexical corpus: how many units, and their mean length (at least 1).
SELECT coalesce(sum(documents), 0)::float8 AS n,
       greatest(coalesce(sum(total_length), 0)::float8 / greatest(sum(documents), 1), 1.0) AS avgdl
FROM lexical_corpus WHERE repository_id = ANY(%(repos)s)
