-- The repository's file versions tokenized at this version without postings (all, or those of
-- the ids), marked posted: the caller writes their postings in the same transaction.
UPDATE file_versions SET lexical_posted = true
WHERE repository_id = %(repo)s AND NOT lexical_posted AND lexical_version = %(version)s
  AND (%(ids)s::bigint[] IS NULL OR id = ANY(%(ids)s))
RETURNING id
