-- Every principal with the names of the repositories granted to it.
SELECT p.name, p.all_repositories,
       coalesce(array_agg(r.name ORDER BY r.name) FILTER (WHERE r.name IS NOT NULL), ARRAY[]::text[])
           AS repositories
FROM principals p LEFT JOIN repository_grants g ON g.principal_id = p.id
LEFT JOIN repositories r ON r.id = g.repository_id
GROUP BY p.id ORDER BY p.name
