-- A run (run_key) was requested for the event's commit.
UPDATE webhook_events SET status = 'queued', run_key = %(run_key)s, processed_at = now(),
    attempts = attempts + 1, detail = NULL
WHERE id = %(id)s
