-- The lexical version a file version's terms were written at, its row locked (a concurrent
-- tokenizer of the same blob waits, then finds it done).
SELECT lexical_version FROM file_versions WHERE id = %(id)s FOR UPDATE
