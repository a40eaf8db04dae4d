-- Take every grant of the principal away (before the principal goes).
DELETE FROM repository_grants WHERE principal_id = %(principal_id)s
