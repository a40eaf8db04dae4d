-- Members of a symbol (methods of a class): found by retrieval, and used by the FK cascade
-- when a file version's symbols are replaced (without it every delete scans the table).
CREATE INDEX code_symbols_parent_idx ON code_symbols (parent_id);
