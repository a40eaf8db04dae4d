-- Store the repository's secret for the provider in its sealed form.
UPDATE repository_webhooks SET secret = %(secret)s
WHERE repository_id = %(repository_id)s AND provider = %(provider)s
