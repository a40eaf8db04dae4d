-- A repository's document frequencies, before they are rebuilt.
DELETE FROM lexical_term_stats WHERE repository_id = %(repo)s
