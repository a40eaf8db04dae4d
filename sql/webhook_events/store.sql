-- Record a delivery once per (provider, delivery id), handled at once when it produces no work
-- (handled); its id (no row: already received).
INSERT INTO webhook_events (provider, delivery_id, repository, repository_id, event, ref,
                            after_sha, status, detail, processed_at)
VALUES (%(provider)s, %(delivery_id)s, %(repository)s, %(repository_id)s, %(event)s, %(ref)s,
        %(after_sha)s, %(status)s, %(detail)s, CASE WHEN %(handled)s THEN now() END)
ON CONFLICT (provider, delivery_id) DO NOTHING
RETURNING id
