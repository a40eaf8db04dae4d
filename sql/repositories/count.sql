-- How many repositories are registered.
SELECT count(*) AS n FROM repositories
