-- The postings of the file versions `ids` written as rows (`lexical_postings`) from their chunk
-- terms: file versions published after their repository's blocks were built, or a working-tree
-- overlay's. Parameters: repo, ids, k1, b, nominal. Returns how many postings were written.
WITH written AS (
    INSERT INTO lexical_postings (chunk_id, term, repository_id, tf, impact)
    SELECT c.id, p.term, %(repo)s, p.tf,
           p.tf * (%(k1)s + 1) / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * c.lexical_length
                                                  / %(nominal)s))
    FROM code_chunks c
    JOIN lexical_chunk_terms t ON t.chunk_id = c.id
    CROSS JOIN LATERAL codeatlas_chunk_terms(t.terms, t.tfs) AS p(term, tf)
    WHERE c.file_version_id = ANY(%(ids)s)
    RETURNING 1)
SELECT count(*) AS postings FROM written
