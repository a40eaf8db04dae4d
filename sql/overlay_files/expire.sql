-- Drop every overlay past its expiry.
DELETE FROM overlay_files WHERE expires_at <= now() RETURNING file_version_id
