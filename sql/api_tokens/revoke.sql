-- Revoke the token (a revoked one keeps the time it was first revoked).
UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = %(id)s
