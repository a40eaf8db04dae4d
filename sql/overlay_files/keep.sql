-- The principal's overlay of the path is this file version, for ttl_seconds from now.
INSERT INTO overlay_files (repository_id, principal_id, path, file_version_id, expires_at)
VALUES (%(repository_id)s, %(principal_id)s, %(path)s, %(file_version_id)s,
        now() + make_interval(secs => %(ttl_seconds)s))
ON CONFLICT (repository_id, principal_id, path) DO UPDATE SET
    file_version_id = EXCLUDED.file_version_id, indexed_at = now(),
    expires_at = EXCLUDED.expires_at
