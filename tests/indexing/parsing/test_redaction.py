"""Secrets are replaced by `[REDACTED:<kind>]` without moving lines; ordinary code is left alone."""

from __future__ import annotations

import pytest

from indexing.parsing.parser import parse_file
from indexing.parsing.redaction import redact
from tests.indexing.parsing.planted_secrets import PLANTED, planted_module

SECRETS = [
    ('key = "AKIAIOSFODNN7EXAMPLE"', "aws_access_key"),
    ('token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"', "github_token"),
    ("GITLAB = 'glpat-abcdefghij0123456789'", "gitlab_token"),
    ("slack: xoxb-123456789012-abcdefghijkl", "slack_token"),
    ("hook = 'https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX'", "slack_webhook"),
    ('stripe.api_key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"', "stripe_key"),
    ('const k = "AIzaSyA1234567890abcdefghijklmnopqrstuv"', "google_api_key"),
    (
        'jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9"',
        "jwt",
    ),
    ('DATABASE_URL = "postgres://app:s3cr3t-Pass@db.internal:5432/app"', "url_password"),
    ("PASSWORD=hunter22", "secret"),
    ('SECRET_KEY = "dev-key-123"', "secret"),
    ("'password' => 'secret123',", "secret"),
    ('app.config["SECRET_KEY"] = "abc123"', "secret"),
    ("api_key: sk2-77aa-91bb", "secret"),
    ('checksum = "9e107d9d372bb6826bd81d3542a419d6"', "hex_string"),
    ('blob = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"', "high_entropy_string"),
]


@pytest.mark.parametrize(("line", "kind"), SECRETS, ids=[k for _, k in SECRETS])
def test_each_known_secret_format_is_redacted_with_its_kind(line: str, kind: str):
    redacted, count = redact(line)
    assert f"[REDACTED:{kind}]" in redacted
    assert count >= 1


ORDINARY = [
    "password: str",
    "api_key: Optional[str] = None",
    'password = request.form["password"]',
    'token_type = "bearer"',
    'csrf_token = "csrf_token"',
    'PASSWORD_FIELD = "password_field"',
    'password = "Enter your password"',
    'self.assertEqual("src/components/SomeLongName", path)',
    'name = "someVeryLongIdentifierName2"',
    'ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"',
    'url = "https://user:${PASSWORD}@host/db"',
    'url = "https://example.com/path?query=1"',
    "def get_secret(self, name): return self.vault.read(name)",
    "if token is None: raise AuthError()",
    "secret = os.environ['SECRET']",
    'uuid = "123e4567-e89b-12d3-a456-426614174000"',
]


@pytest.mark.parametrize("line", ORDINARY)
def test_ordinary_code_is_not_redacted(line: str):
    assert redact(line) == (line, 0)


def test_a_private_key_block_is_redacted_and_keeps_its_line_count():
    text = (
        "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabcdef==\n"
        "-----END RSA PRIVATE KEY-----\nafter\n"
    )
    redacted, count = redact(text)
    assert count == 1
    assert "[REDACTED:private_key]" in redacted and "MIIE" not in redacted
    assert redacted.count("\n") == text.count("\n")
    assert redacted.split("\n")[-2] == "after"


def test_secrets_in_parsed_chunks_are_redacted_while_lines_stay_exact():
    source = (
        b'"""Settings."""\n'
        b"import os\n\n"
        b'DB_URL = "postgres://app:pa55w0rd@db:5432/app"\n\n\n'
        b"def connect(password='hunter22'):\n"
        b'    key = "AKIAIOSFODNN7EXAMPLE"\n'
        b"    return key\n"
    )
    parsed = parse_file("settings.py", source)
    assert parsed.redactions >= 3
    everything = "\n".join(c.content for c in parsed.chunks)
    for secret in ("pa55w0rd", "AKIAIOSFODNN7EXAMPLE", "hunter22"):
        assert secret not in everything
        assert all(secret not in s.signature for s in parsed.symbols)
    function = next(c for c in parsed.chunks if c.symbol_name == "connect")
    assert (function.start_line, function.end_line) == (7, 9)
    assert function.content.count("\n") == 2


def test_every_detect_secrets_plugin_is_covered_by_a_rule():
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    from indexing.parsing.redaction import DETECT_SECRETS_COVERAGE

    plugins = {cls.__name__ for cls in get_mapping_from_secret_type_to_class().values()}
    assert plugins == set(DETECT_SECRETS_COVERAGE)


@pytest.mark.parametrize(("kind", "secret", "line"), PLANTED, ids=[p[0] for p in PLANTED])
def test_a_planted_secret_of_each_kind_is_gone_and_detect_secrets_finds_nothing(kind, secret, line):
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    redacted, count = redact(line)
    assert secret not in redacted and count >= 1
    with default_settings():
        # entropy plugins flag any word at their default limits; the named formats must be gone
        found = {s.type for s in scan_line(redacted) if "High Entropy" not in s.type}
    assert not found


def test_a_secret_used_as_a_call_receiver_is_redacted_in_the_edge():
    parsed = parse_file("a.py", planted_module().encode())
    qualifiers = " ".join(e.qualifier or "" for e in parsed.edges)
    assert "[REDACTED:aws_access_key]" in qualifiers
    for _kind, secret, _line in PLANTED:
        assert secret not in qualifiers
        assert all(secret not in c.content for c in parsed.chunks)
