-- Every token (never the secret): its principal, label, hash prefix, dates, whether expired.
SELECT t.id, p.name AS principal, t.label, left(t.token_hash, 12) AS hash_prefix,
       t.created_at, t.last_used_at, t.revoked_at, t.expires_at,
       coalesce(t.expires_at <= now(), false) AS expired
FROM api_tokens t JOIN principals p ON p.id = t.principal_id
ORDER BY t.id
