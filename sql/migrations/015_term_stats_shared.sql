-- Document frequencies in shared rows (issue 30, docs/lexical.md "Storage"): a row per term and
-- repository cost ~103 bytes (heap row and covering key) for 12 bytes of data; on the Linux
-- kernel 3.55 M terms took 367 MB, most of them rare. A repository's terms whose hash ends in
-- the same 17 bits (`codeatlas_rare_bucket`, as the rare terms' shared postings) now share a
-- row: `terms` ascending, `dfs` beside them. A query reads its terms' buckets and keeps its
-- terms; a publish rewrites the buckets its delta touches. Written into a new table that
-- replaces the old one (deleting in place would keep the old rows' space).
CREATE TABLE lexical_term_stats_next (
    repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE,
    bucket bigint NOT NULL,
    terms bigint[] NOT NULL,
    dfs integer[] NOT NULL
);
INSERT INTO lexical_term_stats_next (repository_id, bucket, terms, dfs)
SELECT repository_id, codeatlas_rare_bucket(term), array_agg(term ORDER BY term),
       array_agg(df ORDER BY term)
FROM lexical_term_stats
GROUP BY repository_id, codeatlas_rare_bucket(term)
ORDER BY repository_id, codeatlas_rare_bucket(term);

DROP TABLE lexical_term_stats;
ALTER TABLE lexical_term_stats_next RENAME TO lexical_term_stats;
ALTER TABLE lexical_term_stats RENAME CONSTRAINT lexical_term_stats_next_repository_id_fkey
    TO lexical_term_stats_repository_id_fkey;
ALTER TABLE lexical_term_stats ADD CONSTRAINT lexical_term_stats_pkey
    PRIMARY KEY (repository_id, bucket);
