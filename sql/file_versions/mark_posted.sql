-- The file versions' postings are written (the blocks just built hold them).
UPDATE file_versions SET lexical_posted = true WHERE id = ANY(%(ids)s) AND NOT lexical_posted
