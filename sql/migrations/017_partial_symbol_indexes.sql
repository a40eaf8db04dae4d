-- Indexes of symbol references without their NULLs (issue 30, docs/architecture.md "Chunk text
-- in compressed pages"). A call at file level has no caller, a file-level chunk no symbol and a
-- top-level symbol no parent: on the Linux kernel 21% of the edges and 24% of the chunks. Nothing
-- looks those rows up by the NULL (the readers and the cascades from `code_symbols` ask for one
-- symbol's id), yet every NULL had an entry, and they sort last: each new id went into the page
-- before the NULLs, not the last page, and that page split in half (52-54% full on the kernel
-- against ~90% for ids written in order). Without them the new ids go to the last page.
DROP INDEX code_edges_caller_idx;
CREATE INDEX code_edges_caller_idx ON code_edges (caller_symbol_id)
    WHERE caller_symbol_id IS NOT NULL;
DROP INDEX code_chunks_symbol_idx;
CREATE INDEX code_chunks_symbol_idx ON code_chunks (symbol_id) WHERE symbol_id IS NOT NULL;
DROP INDEX code_symbols_parent_idx;
CREATE INDEX code_symbols_parent_idx ON code_symbols (parent_id) WHERE parent_id IS NOT NULL;
