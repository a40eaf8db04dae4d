-- Ids from a table's own sequence, taken before its rows are copied in.
SELECT nextval(pg_get_serial_sequence(%(table)s, 'id')) AS id FROM generate_series(1, %(n)s)
