-- Freshness (DESIGN.md §8): per-repository webhook secrets, event processing state,
-- and the provider spec of each embedding model so any process can rebuild its embedder.

-- The secret is stored as given: HMAC verification needs the secret itself, not a hash.
-- Keep database access restricted; the CLI reads secrets from stdin or the environment
-- and never prints or logs them.
CREATE TABLE repository_webhooks (
    repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE,
    provider text NOT NULL CHECK (provider IN ('github', 'gitlab', 'bitbucket', 'gitea')),
    secret text NOT NULL CHECK (length(secret) >= 8),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repository_id, provider)
);

-- webhook_events.status: pending → queued (a run was requested) | superseded (a newer push
-- of the same repository was queued instead) | indexed (the commit was already current) |
-- ignored (not the tracked branch, a tag, a deletion) | failed (gave up after retries).
ALTER TABLE webhook_events
    ADD COLUMN repository_id bigint REFERENCES repositories ON DELETE CASCADE,
    ADD COLUMN event text,
    ADD COLUMN attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN run_key text,
    ADD COLUMN processed_at timestamptz,
    ADD CONSTRAINT webhook_events_status_check CHECK (status IN
        ('pending', 'queued', 'superseded', 'indexed', 'ignored', 'failed'));
CREATE INDEX webhook_events_repository_idx ON webhook_events (repository, received_at DESC);

-- How to rebuild the embedder of a stored model name (never API keys: those stay in the env).
ALTER TABLE embedding_models
    ADD COLUMN provider text,
    ADD COLUMN provider_model text,
    ADD COLUMN base_url text;
