-- A working-tree file's end of life, fixed when it is indexed (index_file answers it as
-- expires_at) and checked by every read (retrieval/scope.py): an expired file is invisible at
-- once, not only after the server's next sweep deletes it (every 10 minutes).
ALTER TABLE overlay_files ADD COLUMN expires_at timestamptz;
UPDATE overlay_files SET expires_at = indexed_at + interval '24 hours';
ALTER TABLE overlay_files
    ALTER COLUMN expires_at SET DEFAULT now() + interval '24 hours',
    ALTER COLUMN expires_at SET NOT NULL;
