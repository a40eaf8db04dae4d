-- Every stored (sealed) webhook secret, by repository and provider.
SELECT repository_id, provider, secret FROM repository_webhooks
