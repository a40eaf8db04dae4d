-- The posting rows of the built file versions (`built_versions`) that the blocks just written
-- hold: all of them in a whole build, else those whose term is in `part` of `parts` (the part
-- of delete_blocks_of_part.sql and build_blocks.sql).
DELETE FROM lexical_postings AS p USING code_chunks c, built_versions v
WHERE p.repository_id = %(repo)s AND c.id = p.chunk_id AND c.file_version_id = v.id
  AND (%(parts)s = 1 OR (codeatlas_rare_bucket(term) * %(parts)s) >> 17 = %(part)s)
