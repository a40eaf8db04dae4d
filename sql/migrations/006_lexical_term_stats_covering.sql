-- A query reads the document frequency of each of its terms in every repository of its scope
-- (hundreds of rows for a scope of many repositories). With `df` in the primary key's index they
-- are read by an index-only scan, where a term's rows are adjacent, instead of one heap page per
-- repository (docs/lexical.md). Same key, so ON CONFLICT (term, repository_id) is unchanged.
ALTER TABLE lexical_term_stats
    DROP CONSTRAINT lexical_term_stats_pkey,
    ADD CONSTRAINT lexical_term_stats_pkey PRIMARY KEY (term, repository_id) INCLUDE (df);
