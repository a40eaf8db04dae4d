-- The snapshot and tokenizer a repository's corpus statistics describe, and its totals, locked.
SELECT snapshot_id, lexical_version, documents, total_length FROM lexical_corpus
WHERE repository_id = %(repo)s FOR UPDATE
