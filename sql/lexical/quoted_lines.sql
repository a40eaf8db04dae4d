-- The scope's chunks holding a bug report's quoted code lines (retrieval/locate.py). Each line
-- is looked for through the postings of its rarest term (the fewest documents), and only when
-- that term is rare enough for its postings to be read whole; a chunk holds the line when its
-- text with runs of white space collapsed contains it (tried only on the chunks holding the
-- line's longest piece without white space, its anchor, as it is: a cheap test first). A
-- template: the visible files are composed in (constant text, no values). Parameters: lines
-- and anchors (text[]); line_numbers and line_terms, parallel arrays of a line's number in lines
-- (from 1) and one of its terms; max_df; and the scope's.
WITH wanted AS (
    SELECT * FROM unnest(%(line_numbers)s::int[], %(line_terms)s::bigint[]) AS w(line, term)),
df AS (
    SELECT term, sum(df) AS df FROM lexical_term_stats
    WHERE term = ANY(%(line_terms)s::bigint[]) AND repository_id = ANY(%(scope_repos)s)
    GROUP BY term),
rarest AS (
    SELECT DISTINCT ON (w.line) w.line, w.term, df.df
    FROM wanted w JOIN df ON df.term = w.term
    ORDER BY w.line, df.df, w.term),
holding AS MATERIALIZED (
    SELECT r.line, c.file_version_id, c.symbol_id
    FROM rarest r
    JOIN lexical_postings p ON p.repository_id = ANY(%(scope_repos)s) AND p.term = r.term
    JOIN code_chunks c ON c.id = p.chunk_id
    WHERE r.df <= %(max_df)s
      AND strpos(c.content, (%(anchors)s::text[])[r.line]) > 0
      AND strpos(regexp_replace(c.content, '\s+', ' ', 'g'), (%(lines)s::text[])[r.line]) > 0),
{visible_files}
SELECT DISTINCT h.line, f.repository, f.path, f.file_version_id, f.commit_sha, f.source,
       s.qualified_name, s.kind, s.start_line, s.end_line
FROM holding h JOIN files f ON f.file_version_id = h.file_version_id
LEFT JOIN code_symbols s ON s.id = h.symbol_id
