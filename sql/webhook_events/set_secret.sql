-- Create or replace the repository's webhook secret for one provider.
INSERT INTO repository_webhooks (repository_id, provider, secret)
VALUES (%(repository_id)s, %(provider)s, %(secret)s)
ON CONFLICT (repository_id, provider) DO UPDATE SET secret = EXCLUDED.secret, updated_at = now()
