-- Where every repository's git objects are and which branch it tracks, in registration order.
SELECT id, name, origin, default_branch FROM repositories ORDER BY id
