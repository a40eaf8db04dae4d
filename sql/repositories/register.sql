-- A repository by name, inserted or updated (its origin; its tracked branch when one is given).
INSERT INTO repositories (name, origin, default_branch)
VALUES (%(name)s, %(origin)s, %(default_branch)s)
ON CONFLICT (name) DO UPDATE SET origin = EXCLUDED.origin,
  default_branch = coalesce(EXCLUDED.default_branch, repositories.default_branch)
RETURNING *
