-- The principal of a live (not revoked, not expired) token by its hash, marking it used now.
UPDATE api_tokens t SET last_used_at = now() FROM principals p
WHERE t.token_hash = %(token_hash)s AND t.revoked_at IS NULL AND p.id = t.principal_id
  AND (t.expires_at IS NULL OR t.expires_at > now())
RETURNING p.id, p.name, p.all_repositories
