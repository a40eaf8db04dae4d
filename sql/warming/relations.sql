-- The table and its indexes, indexes first (a query reads its index before the rows it points
-- at), with their sizes in pages: what core/warming.py reads into the cache, in this order.
SELECT c.oid::regclass::text AS relation, pg_relation_size(c.oid) / 8192 AS pages
FROM pg_class c
LEFT JOIN pg_index i ON i.indexrelid = c.oid
WHERE c.oid = to_regclass(%(table)s) OR i.indrelid = to_regclass(%(table)s)
ORDER BY (i.indexrelid IS NULL), c.oid
