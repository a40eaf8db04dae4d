-- Posting rows written for a repository since its blocks were built (none built: no blocks).
INSERT INTO lexical_blocks_built AS s (repository_id, block_postings, row_postings)
VALUES (%(repo)s, 0, %(written)s)
ON CONFLICT (repository_id) DO UPDATE SET row_postings = s.row_postings + EXCLUDED.row_postings
