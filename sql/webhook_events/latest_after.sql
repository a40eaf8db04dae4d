-- The commit the repository's latest event for the ref moved it to (no row: no event yet).
SELECT after_sha FROM webhook_events
WHERE repository = %(repository)s AND ref = %(ref)s
ORDER BY id DESC LIMIT 1
