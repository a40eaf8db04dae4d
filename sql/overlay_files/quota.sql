-- How many working-tree files the principal keeps, and whether it keeps this path already
-- (replacing it takes no more of the quota).
SELECT count(*) AS n,
       bool_or(repository_id = %(repository_id)s AND path = %(path)s) AS replacing
FROM overlay_files WHERE principal_id = %(principal_id)s
