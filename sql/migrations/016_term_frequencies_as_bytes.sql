-- Smaller chunk terms (issue 30, docs/lexical.md "Storage"): a chunk's term frequencies were a
-- smallint[] (~100 bytes for its ~39 terms: two bytes each and a 24-byte array header); now one
-- byte each in a bytea (~40 bytes). A frequency is at most 255: BM25 saturates long before
-- (at k1 = 1.2 a term 255 times scores within 0.5% of a term 32,767 times).
CREATE FUNCTION codeatlas_tf_bytes(tfs smallint[]) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN coalesce(decode(array_to_string(ARRAY(
    SELECT lpad(to_hex(least(tf, 255)), 2, '0') FROM unnest(tfs) WITH ORDINALITY u(tf, i)
    ORDER BY i), ''), 'hex'), ''::bytea);
ALTER TABLE lexical_chunk_terms ALTER COLUMN tfs TYPE bytea USING codeatlas_tf_bytes(tfs);
DROP FUNCTION codeatlas_tf_bytes(smallint[]);

-- A chunk's (term, frequency) pairs, as `unnest(terms, tfs)` read them before (inlined into the
-- statements that call it).
CREATE FUNCTION codeatlas_chunk_terms(terms bigint[], tfs bytea)
RETURNS TABLE (term bigint, tf integer)
LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 40
AS $$ SELECT u.term, get_byte(tfs, (u.i - 1)::integer) FROM unnest(terms) WITH ORDINALITY u(term, i) $$;
