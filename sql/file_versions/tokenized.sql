-- The repository's parsed file versions tokenized at this lexical version.
SELECT id FROM file_versions
WHERE repository_id = %(repo)s AND lexical_version = %(version)s AND parsed_at IS NOT NULL
