-- Delete the principal's tokens (before the principal itself).
DELETE FROM api_tokens WHERE principal_id = %(principal_id)s
