-- The secrets not sealed yet (not starting with sealed_prefix), locked until the transaction
-- ends.
SELECT repository_id, provider, secret FROM repository_webhooks
WHERE secret NOT LIKE %(sealed_prefix)s
FOR UPDATE
