-- The file versions a build reads, into its temporary table `built_versions`.
INSERT INTO built_versions SELECT unnest(%(ids)s::bigint[])
