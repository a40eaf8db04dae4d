-- The event is handled, with this status and why.
UPDATE webhook_events SET status = %(status)s, detail = %(detail)s, processed_at = now()
WHERE id = %(id)s
