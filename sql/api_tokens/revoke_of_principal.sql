-- Revoke every live token of the principal.
UPDATE api_tokens SET revoked_at = now()
WHERE principal_id = %(principal_id)s AND revoked_at IS NULL
