-- The model's dimensions and the chunks of the repositories' current snapshots (an upper
-- bound of their vectors), in one round trip.
SELECT (SELECT dimensions FROM embedding_models WHERE name = %(model)s) AS dims,
       (SELECT coalesce(sum(documents), 0) FROM lexical_corpus
        WHERE repository_id = ANY(%(repo_ids)s)) AS n
