-- What a file version is for, read from its content when it is parsed
-- (indexing/parsing/content_roles.py): 'test', 'fixture', 'benchmark', 'generated', 'vendored',
-- or 'code' when the content says nothing more; NULL for a version parsed before this column
-- existed, until the next parse of a snapshot holding it reads the role from its stored chunks
-- (indexing/role_backfill.py). Readers take the role of the path (retrieval/path_roles.py)
-- where it says anything but code, else this one.
ALTER TABLE file_versions ADD COLUMN role text;
