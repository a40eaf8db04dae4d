-- The event's run was not launched after all: pending again, with why.
UPDATE webhook_events SET status = 'pending', run_key = NULL, processed_at = NULL,
    detail = %(detail)s
WHERE id = %(id)s
