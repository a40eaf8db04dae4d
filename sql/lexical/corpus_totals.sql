-- A snapshot's corpus (documents: chunks counted once per path; their total length), counted
-- from all its chunks (corpus_totals_delta.sql moves the totals of another snapshot instead).
SELECT count(*) AS documents, coalesce(sum(c.lexical_length), 0) AS total_length
FROM snapshot_files sf JOIN code_chunks c ON c.file_version_id = sf.file_version_id
WHERE sf.snapshot_id = %(snapshot_id)s
