-- The principal with this name (no row: none).
SELECT * FROM principals WHERE name = %(name)s
