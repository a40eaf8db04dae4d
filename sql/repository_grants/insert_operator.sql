-- Create the operator principal (reads every repository) unless one has its name.
INSERT INTO principals (name, all_repositories) VALUES (%(name)s, true)
ON CONFLICT (name) DO NOTHING
