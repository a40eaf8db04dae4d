-- Delete the principal (its grants, tokens and overlays are gone first).
DELETE FROM principals WHERE id = %(id)s
