-- A bearer token's end of life (issue 47), fixed when it is created (`codeatlas token create
-- --expires-in 30d`) and checked by every request: past it the token is refused with 401 and
-- the reason. NULL: the token lives until it is revoked, as every token did before.
ALTER TABLE api_tokens ADD COLUMN expires_at timestamptz;
