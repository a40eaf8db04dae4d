-- When the token with this hash was revoked and when it expires (no row: never issued here).
SELECT revoked_at, expires_at FROM api_tokens WHERE token_hash = %(token_hash)s
