-- A repository's blocks were built: the postings they hold, the rows left beside them, when.
INSERT INTO lexical_blocks_built (repository_id, block_postings, row_postings)
VALUES (%(repo)s, %(block_postings)s, %(row_postings)s)
ON CONFLICT (repository_id) DO UPDATE SET block_postings = EXCLUDED.block_postings,
  row_postings = EXCLUDED.row_postings, built_at = now()
