-- The repository with this name, locked until the transaction ends.
SELECT * FROM repositories WHERE name = %(name)s FOR UPDATE
