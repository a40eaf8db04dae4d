-- Fetching the event's commit failed: its attempts and why; handled now when status is failed
-- (pending: retried).
UPDATE webhook_events SET attempts = %(attempts)s, detail = %(detail)s, status = %(status)s,
    processed_at = CASE WHEN %(status)s = 'failed' THEN now() END
WHERE id = %(id)s
