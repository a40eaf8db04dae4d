-- Store a new token's hash for the principal; a NULL lifetime never expires. Its id.
INSERT INTO api_tokens (principal_id, token_hash, label, expires_at)
VALUES (%(principal_id)s, %(token_hash)s, %(label)s, now() + %(lifetime)s::interval)
RETURNING id
