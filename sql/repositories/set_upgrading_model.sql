-- The upgrade target of a repository (NULL: no upgrade).
UPDATE repositories SET upgrading_embedding_model = %(model)s WHERE name = %(name)s
