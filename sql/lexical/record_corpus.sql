-- The corpus statistics of a repository now describe this snapshot at this tokenizer.
INSERT INTO lexical_corpus (repository_id, snapshot_id, lexical_version, documents, total_length)
VALUES (%(repo)s, %(snap)s, %(version)s, %(docs)s, %(length)s)
ON CONFLICT (repository_id) DO UPDATE SET snapshot_id = EXCLUDED.snapshot_id,
  lexical_version = EXCLUDED.lexical_version, documents = EXCLUDED.documents,
  total_length = EXCLUDED.total_length, updated_at = now()
