-- The oldest pending events (at most limit) with their repository's name and origin, locked;
-- those another transaction holds are skipped.
SELECT e.*, r.name AS repo_name, r.origin
FROM webhook_events e JOIN repositories r ON r.id = e.repository_id
WHERE e.status = 'pending'
ORDER BY e.id LIMIT %(limit)s
FOR UPDATE OF e SKIP LOCKED
