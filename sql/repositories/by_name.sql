-- The repository with this name (no row: none).
SELECT * FROM repositories WHERE name = %(name)s
