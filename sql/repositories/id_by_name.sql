-- The id of the repository with this name (no row: none).
SELECT id FROM repositories WHERE name = %(name)s
