-- The file version's chunk terms are written at this lexical version; its postings are not.
UPDATE file_versions SET lexical_version = %(version)s, lexical_posted = false WHERE id = %(id)s
