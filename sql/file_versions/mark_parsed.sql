-- The file version is stored: when, with what the parse found and the role read from it.
UPDATE file_versions SET parsed_at = now(), has_syntax_errors = %(has_syntax_errors)s,
  redactions = %(redactions)s, role = %(role)s
WHERE id = %(id)s
