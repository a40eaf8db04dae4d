-- The role (test, fixture, example, ...) and language each file version's content showed when it
-- was indexed (indexing/parsing/content_roles.py), for the candidates of a search or a locate.
SELECT id, role, language FROM file_versions WHERE id = ANY(%(ids)s)
