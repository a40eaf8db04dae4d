-- The tokens matching what the operator gave: one of an id, a token's hash, or a LIKE pattern
-- of a hash's prefix (the other two NULL).
SELECT id FROM api_tokens
WHERE id = %(id)s OR token_hash = %(token_hash)s OR token_hash LIKE %(hash_prefix)s
