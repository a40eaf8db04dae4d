-- How many chunk terms the repository's file versions tokenized at this version and without
-- postings hold (the postings that publishing would write).
SELECT coalesce(sum(cardinality(t.terms)), 0) AS n FROM file_versions fv
JOIN code_chunks c ON c.file_version_id = fv.id
JOIN lexical_chunk_terms t ON t.chunk_id = c.id
WHERE fv.repository_id = %(repo)s AND NOT fv.lexical_posted AND fv.lexical_version = %(version)s
