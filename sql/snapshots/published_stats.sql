-- The statistics publishing stored for a ready snapshot.
SELECT stats FROM snapshots WHERE id = %(snapshot_id)s AND status = 'ready'
