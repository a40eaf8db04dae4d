-- Take the principal's grant of the repository (by name) away.
DELETE FROM repository_grants g USING repositories r
WHERE g.repository_id = r.id AND g.principal_id = %(principal_id)s AND r.name = %(repository)s
