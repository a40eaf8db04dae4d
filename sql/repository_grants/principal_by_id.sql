-- The principal with this id (no row: it was deleted).
SELECT * FROM principals WHERE id = %(id)s
