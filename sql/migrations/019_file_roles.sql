-- What a file version is for, read from its content when it is parsed
-- (indexing/parsing/content_roles.py): 'test', 'benchmark', 'generated', 'vendored', or NULL
-- when the content says nothing beyond being code, or the version was parsed before this column
-- existed. Readers take the role of the path (retrieval/path_roles.py) where it is NULL: a test
-- suite in a folder no path rule lists is still read as tests once its blob is parsed again.
ALTER TABLE file_versions ADD COLUMN role text;
