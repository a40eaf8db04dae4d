-- Let the principal read the repository (a second grant changes nothing).
INSERT INTO repository_grants (principal_id, repository_id)
VALUES (%(principal_id)s, %(repository_id)s)
ON CONFLICT DO NOTHING
