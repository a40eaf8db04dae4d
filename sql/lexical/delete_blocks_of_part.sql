-- The blocks of a repository whose terms are in `part` of `parts` (a fold replaces them part by
-- part): a term's part is its bucket's share of the 2^17 buckets, so a bucket's shared row and
-- its terms are in one part (as build_blocks.sql picks them).
DELETE FROM lexical_blocks
WHERE repository_id = %(repo)s AND (codeatlas_rare_bucket(term) * %(parts)s) >> 17 = %(part)s
