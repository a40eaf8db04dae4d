-- BM25 inside PostgreSQL (docs/lexical.md): an inverted index of chunk terms, with document
-- frequencies per repository for its current snapshot, replacing ts_rank_cd over tsvectors.

-- One row per (chunk, term). `term` is a 64-bit hash of the term's text (codeatlas/terms.py),
-- so writers never race on a shared dictionary. `tf` is the field-weighted term frequency,
-- `dl` the chunk's length in terms; `impact` is the BM25 term weight at a nominal average
-- length, used only to read a common term's best postings first.
CREATE TABLE lexical_postings (
    chunk_id bigint NOT NULL REFERENCES code_chunks ON DELETE CASCADE,
    term bigint NOT NULL,
    repository_id bigint NOT NULL,
    tf real NOT NULL,
    dl integer NOT NULL,
    impact real NOT NULL,
    PRIMARY KEY (chunk_id, term)
);
CREATE INDEX lexical_postings_term_idx
    ON lexical_postings (repository_id, term, impact DESC) INCLUDE (chunk_id, tf, dl);

-- Which tokenizer wrote a file version's postings (NULL: none yet); a newer one re-tokenizes
-- the stored chunks without parsing or embedding anything again.
ALTER TABLE file_versions ADD COLUMN lexical_version text;
ALTER TABLE code_chunks ADD COLUMN lexical_length integer NOT NULL DEFAULT 0;

-- Document frequencies of the repository's current snapshot (every path counts: a blob at two
-- paths is two documents), kept up to date by publishing (a delta against `snapshot_id`).
CREATE TABLE lexical_corpus (
    repository_id bigint PRIMARY KEY REFERENCES repositories ON DELETE CASCADE,
    snapshot_id bigint REFERENCES snapshots ON DELETE SET NULL,
    lexical_version text NOT NULL,
    documents bigint NOT NULL,
    total_length bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE lexical_term_stats (
    repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE,
    term bigint NOT NULL,
    df integer NOT NULL CHECK (df > 0),
    PRIMARY KEY (term, repository_id)
);

DROP INDEX code_chunks_tsv_idx;
ALTER TABLE code_chunks DROP COLUMN tsv;
DROP FUNCTION codeatlas_code_tsvector(text, text);
DROP FUNCTION codeatlas_code_words(text);
