-- The (sealed) webhook secrets of the given repositories for one provider.
SELECT repository_id, secret FROM repository_webhooks
WHERE provider = %(provider)s AND repository_id = ANY(%(repository_ids)s)
