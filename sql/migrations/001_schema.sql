-- The whole index schema (DESIGN.md §4). Content-addressed: file versions by git blob,
-- chunks by file version, vectors by (repository, model, content hash).

CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Identifiers split into their words, so "isEligibleForRefund" and "is_eligible" match the
-- words "eligible" and "refund". The same function tokenizes queries (retrieval/lexical.py).
CREATE FUNCTION codeatlas_code_words(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
    SELECT regexp_replace(
        regexp_replace(
            regexp_replace(t, '([a-z0-9])([A-Z])', '\1 \2', 'g'),
            '([A-Z]+)([A-Z][a-z])', '\1 \2', 'g'),
        '[^A-Za-z0-9]+', ' ', 'g')
$$;

CREATE FUNCTION codeatlas_code_tsvector(qualified_name text, content text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector('simple', codeatlas_code_words(coalesce(qualified_name, ''))), 'A')
        || to_tsvector('simple', codeatlas_code_words(left(content, 200000)))
        || to_tsvector('simple', regexp_replace(left(content, 200000), '[^A-Za-z0-9_]+', ' ', 'g'))
$$;

CREATE TABLE repositories (
    id bigserial PRIMARY KEY,
    name text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$'),
    origin text NOT NULL,
    default_branch text,
    current_snapshot_id bigint,
    active_embedding_model text,
    upgrading_embedding_model text,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE snapshots (
    id bigserial PRIMARY KEY,
    repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE,
    commit_sha text NOT NULL,
    ref text,
    status text NOT NULL DEFAULT 'building' CHECK (status IN ('building', 'ready', 'failed')),
    parser_version text NOT NULL,
    committed_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    ready_at timestamptz,
    stats jsonb NOT NULL DEFAULT '{}',
    UNIQUE (repository_id, commit_sha)
);

ALTER TABLE repositories
    ADD CONSTRAINT repositories_current_snapshot_fk
    FOREIGN KEY (current_snapshot_id) REFERENCES snapshots ON DELETE SET NULL;

CREATE TABLE file_versions (
    id bigserial PRIMARY KEY,
    repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE,
    blob_sha text NOT NULL,
    language text NOT NULL,
    parser_version text NOT NULL,
    size_bytes bigint NOT NULL,
    has_syntax_errors boolean NOT NULL DEFAULT false,
    redactions integer NOT NULL DEFAULT 0,
    -- NULL until its chunks, symbols and edges are stored (in the same transaction)
    parsed_at timestamptz,
    UNIQUE (repository_id, blob_sha, language, parser_version)
);

-- The file list of one commit; skipped files are kept with the reason.
CREATE TABLE snapshot_files (
    snapshot_id bigint NOT NULL REFERENCES snapshots ON DELETE CASCADE,
    path text NOT NULL,
    blob_sha text NOT NULL,
    language text,
    size_bytes bigint NOT NULL,
    skip_reason text,
    file_version_id bigint REFERENCES file_versions,
    PRIMARY KEY (snapshot_id, path)
);
CREATE INDEX snapshot_files_file_version_idx ON snapshot_files (file_version_id);

CREATE TABLE code_symbols (
    id bigserial PRIMARY KEY,
    file_version_id bigint NOT NULL REFERENCES file_versions ON DELETE CASCADE,
    ordinal integer NOT NULL,
    name text NOT NULL,
    qualified_name text NOT NULL,
    kind text NOT NULL,
    signature text NOT NULL,
    start_line integer NOT NULL,
    end_line integer NOT NULL,
    start_byte integer NOT NULL,
    end_byte integer NOT NULL,
    parent_id bigint REFERENCES code_symbols ON DELETE CASCADE,
    UNIQUE (file_version_id, ordinal)
);
CREATE INDEX code_symbols_name_trgm_idx ON code_symbols USING gin (name gin_trgm_ops);
CREATE INDEX code_symbols_lower_name_idx ON code_symbols (lower(name));
CREATE INDEX code_symbols_qualified_name_idx ON code_symbols (lower(qualified_name));

CREATE TABLE code_chunks (
    id bigserial PRIMARY KEY,
    file_version_id bigint NOT NULL REFERENCES file_versions ON DELETE CASCADE,
    ordinal integer NOT NULL,
    symbol_id bigint REFERENCES code_symbols ON DELETE CASCADE,
    symbol_name text,
    qualified_name text,
    symbol_kind text NOT NULL,
    start_line integer NOT NULL,
    end_line integer NOT NULL,
    start_byte integer NOT NULL,
    end_byte integer NOT NULL,
    piece integer NOT NULL DEFAULT 0,
    piece_count integer NOT NULL DEFAULT 1,
    content text NOT NULL,
    content_hash text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (codeatlas_code_tsvector(qualified_name, content)) STORED,
    UNIQUE (file_version_id, ordinal)
);
CREATE INDEX code_chunks_tsv_idx ON code_chunks USING gin (tsv);
CREATE INDEX code_chunks_content_hash_idx ON code_chunks (content_hash);
CREATE INDEX code_chunks_symbol_idx ON code_chunks (symbol_id);

CREATE TABLE code_edges (
    file_version_id bigint NOT NULL REFERENCES file_versions ON DELETE CASCADE,
    ordinal integer NOT NULL,
    caller_symbol_id bigint REFERENCES code_symbols ON DELETE CASCADE,
    callee_name text NOT NULL,
    qualifier text,
    line integer NOT NULL,
    kind text NOT NULL,
    PRIMARY KEY (file_version_id, ordinal)
);
CREATE INDEX code_edges_callee_idx ON code_edges (callee_name, kind);
CREATE INDEX code_edges_caller_idx ON code_edges (caller_symbol_id);

-- One row per embedding model in use; each gets its own partial HNSW index (created on demand
-- by the code that embeds), so several models coexist during an upgrade and never mix.
CREATE TABLE embedding_models (
    name text PRIMARY KEY,
    dimensions integer NOT NULL CHECK (dimensions > 0 AND dimensions <= 4000),
    index_name text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE chunk_embeddings (
    repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE,
    embedding_model text NOT NULL REFERENCES embedding_models,
    content_hash text NOT NULL,
    embedding halfvec NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repository_id, embedding_model, content_hash)
);

CREATE TABLE webhook_events (
    id bigserial PRIMARY KEY,
    provider text NOT NULL,
    delivery_id text NOT NULL,
    repository text NOT NULL,
    ref text,
    after_sha text,
    received_at timestamptz NOT NULL DEFAULT now(),
    status text NOT NULL DEFAULT 'pending',
    detail text,
    UNIQUE (provider, delivery_id)
);
CREATE INDEX webhook_events_pending_idx ON webhook_events (id) WHERE status = 'pending';

CREATE TABLE principals (
    id bigserial PRIMARY KEY,
    name text NOT NULL UNIQUE,
    -- an operator principal (stdio on one's own machine) may read every repository
    all_repositories boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_tokens (
    id bigserial PRIMARY KEY,
    principal_id bigint NOT NULL REFERENCES principals ON DELETE CASCADE,
    token_hash text NOT NULL UNIQUE,
    label text,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz,
    last_used_at timestamptz
);

CREATE TABLE repository_grants (
    principal_id bigint NOT NULL REFERENCES principals ON DELETE CASCADE,
    repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE,
    PRIMARY KEY (principal_id, repository_id)
);

-- Uncommitted files pushed through the MCP tool index_file, visible only to their principal.
CREATE TABLE overlay_files (
    repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE,
    principal_id bigint NOT NULL REFERENCES principals ON DELETE CASCADE,
    path text NOT NULL,
    file_version_id bigint NOT NULL REFERENCES file_versions,
    indexed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repository_id, principal_id, path)
);
