-- Every block of a repository (a whole build replaces them).
DELETE FROM lexical_blocks WHERE repository_id = %(repo)s
