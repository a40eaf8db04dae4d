-- A chunk's length in lexical terms (the lexical index).
UPDATE code_chunks SET lexical_length = %(length)s WHERE id = %(id)s
