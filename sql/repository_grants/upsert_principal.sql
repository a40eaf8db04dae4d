-- Create a principal, or update whether it reads every repository; the row as stored.
INSERT INTO principals (name, all_repositories) VALUES (%(name)s, %(all_repositories)s)
ON CONFLICT (name) DO UPDATE SET all_repositories = EXCLUDED.all_repositories
RETURNING *
