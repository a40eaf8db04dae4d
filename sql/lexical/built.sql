-- The postings a repository's blocks hold and its posting rows since (no row: never built).
SELECT block_postings, row_postings FROM lexical_blocks_built WHERE repository_id = %(repo)s
