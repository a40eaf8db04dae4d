"""Replace secrets in text by `[REDACTED:<kind>]`, never changing the number of lines.

Known credential formats are matched by pattern (AWS, GitHub, GitLab, Slack, Stripe, Google, JWT,
OpenAI, SendGrid, Twilio, npm, PyPI, Discord, Telegram, Azure, ... - every detect-secrets plugin),
private key blocks, passwords in connection URLs, secret-named assignments); other quoted strings
are redacted when they look random, using detect-secrets' Shannon entropy (base64 and hex
charsets, its default limits). Replacements stay within a line, and a multi-line private key keeps
its newlines, so line numbers computed on the original stay right. Redaction is applied to each
chunk's content after slicing: chunk byte offsets always refer to the original file.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable

from detect_secrets.plugins.high_entropy_strings import (
    Base64HighEntropyString,
    HexHighEntropyString,
)

_BASE64 = Base64HighEntropyString()
_HEX = HexHighEntropyString()

_PRIVATE_KEY = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
    r"(?:.*?-----END \1-----|(?:(?:\r?\n|\\n)[\sA-Za-z0-9+/=:,\-\\\"']*)*)",
    re.DOTALL,
)

# (kind, substrings one of which every match contains, pattern): checked first, they skip most
# texts cheaply (a full scan costs about 30 ms per megabyte).
# With the rules below they cover every detect-secrets 1.5 plugin (DETECT_SECRETS_COVERAGE).
_TOKEN_PATTERNS: list[tuple[str, tuple[str, ...], re.Pattern[str]]] = [
    (
        "aws_access_key",
        (
            "AKIA",
            "ASIA",
            "ABIA",
            "ACCA",
            "AGPA",
            "AIDA",
            "AROA",
            "AIPA",
            "A3T",
        ),
        re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
    ),
    (
        "github_token",
        (
            "ghp_",
            "gho_",
            "ghu_",
            "ghs_",
            "ghr_",
            "github_pat_",
        ),
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9_]{36,255}|github_pat_\w{22,255})"),
    ),
    (
        "gitlab_token",
        (
            "glpat-",
            "gldt-",
            "glft-",
            "glsoat-",
            "glrt-",
            "glimt-",
            "glptt-",
            "glagent-",
            "gloas-",
            "glcbt-",
        ),
        re.compile(
            r"\b(?:(?:glpat|gldt|glft|glsoat|glrt|glimt|glptt|glagent|gloas)-[A-Za-z0-9_\-]{20,}"
            r"|glcbt-(?:[0-9a-fA-F]{2}_)?[A-Za-z0-9_\-]{20,})(?![\w-])"
        ),
    ),
    ("gitlab_token", ("GR1348941",), re.compile(r"\bGR1348941[A-Za-z0-9_\-]{20,}(?![\w-])")),
    ("slack_token", ("xox",), re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}")),
    (
        "slack_webhook",
        ("hooks.slack.com",),
        re.compile(r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/\w+"),
    ),
    (
        "stripe_key",
        (
            "k_live_",
            "k_test_",
        ),
        re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ),
    ("google_api_key", ("AIza",), re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])")),
    (
        "openai_key",
        ("sk-",),
        re.compile(
            r"\bsk-(?:[A-Za-z0-9_-]*T3BlbkFJ[A-Za-z0-9_-]{20,}"
            r"|(?:proj|svcacct|admin|ant-api\d\d|ant-admin\d\d)-[A-Za-z0-9_-]{20,})"
        ),
    ),
    ("sendgrid_key", ("SG.",), re.compile(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b")),
    (
        "twilio_key",
        (
            "AC",
            "SK",
        ),
        re.compile(r"\b(?:AC|SK)[a-z0-9]{32}\b"),
    ),
    ("mailchimp_key", ("-us",), re.compile(r"\b[0-9a-z]{32}-us[0-9]{1,2}\b")),
    ("npm_token", ("npm_",), re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("pypi_token", ("pypi-",), re.compile(r"\bpypi-AgE[A-Za-z0-9_-]{70,}")),
    ("square_token", ("sq0",), re.compile(r"\bsq0(?:csp|atp)-[0-9A-Za-z_\-]{22,43}")),
    ("telegram_token", (":",), re.compile(r"\b\d{8,10}:[0-9A-Za-z_-]{35}(?![\w-])")),
    (
        "discord_token",
        (".",),
        re.compile(r"\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}(?![\w-])"),
    ),
    (
        "softlayer_key",
        ("softlayer",),
        re.compile(r"(?<=api\.softlayer\.com/soap/v3/)[a-z0-9]{64}|(?<=v3\.1/)[a-z0-9]{64}"),
    ),
    ("azure_storage_key", ("AccountKey=",), re.compile(r"(?<=AccountKey=)[A-Za-z0-9+/=]{86,88}")),
    ("artifactory_token", ("AKC",), re.compile(r"(?<![\w/+=])AKC[A-Za-z0-9]{10,}(?![\w/+=])")),
]

# JSON Web Tokens (and JWS/JWE): a base64url JSON header `{"...` (so `eyJ`), then one or more
# dot-separated segments (the payload need not start `eyJ`, the signature may be empty).
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{4,}={0,2}(?:\.[A-Za-z0-9_-]*={0,2}){1,4}")
# Artifactory passwords (`AP` + a hex digit + 8 or more): only as a whole delimited value.
_ARTIFACTORY_PASSWORD = re.compile(r"(?<=[\s=:\"'])AP[0-9A-F][A-Za-z0-9]{8,}(?=[\s\"']|$)", re.M)
# npm's `.npmrc` line `//registry/:_authToken=...`
_NPM_AUTH = re.compile(r"(?<=:_authToken=)\s*[^\s'\"]{8,}")

# Which rule covers each detect-secrets plugin (tests check this list against the installed
# detect-secrets). IPPublicDetector is not a credential: addresses stay searchable.
DETECT_SECRETS_COVERAGE: dict[str, str] = {
    "ArtifactoryDetector": "artifactory_token",
    "AWSKeyDetector": "aws_access_key (ids); secret-named assignments and entropy (secret keys)",
    "AzureStorageKeyDetector": "azure_storage_key",
    "BasicAuthDetector": "url_password",
    "CloudantDetector": "url_password and secret-named assignments",
    "DiscordBotTokenDetector": "discord_token",
    "GitHubTokenDetector": "github_token",
    "GitLabTokenDetector": "gitlab_token",
    "Base64HighEntropyString": "high_entropy_string",
    "HexHighEntropyString": "hex_string",
    "IbmCloudIamDetector": "secret-named assignments",
    "IbmCosHmacDetector": "secret-named assignments and hex_string",
    "IPPublicDetector": "not redacted: an IP address is not a credential",
    "JwtTokenDetector": "jwt",
    "KeywordDetector": "secret-named assignments",
    "MailchimpDetector": "mailchimp_key",
    "NpmDetector": "npm_token",
    "OpenAIDetector": "openai_key",
    "PrivateKeyDetector": "private_key",
    "PypiTokenDetector": "pypi_token",
    "SendGridDetector": "sendgrid_key",
    "SlackDetector": "slack_token, slack_webhook",
    "SoftlayerDetector": "softlayer_key and secret-named assignments",
    "SquareOAuthDetector": "square_token",
    "StripeDetector": "stripe_key",
    "TelegramBotTokenDetector": "telegram_token",
    "TwilioKeyDetector": "twilio_key",
}

_URL_PASSWORD = re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@'\"<>]+:)([^\s@/'\"<>]+)(@)")

# A secret-looking name ends with one of these words (`DB_PASSWORD`, `apiKey`, `csrf_token`).
_SECRET_WORD = (
    r"(?:password|passwd|passphrase|pwd|secret|secret_?key|api_?key|apikey|access_?key"
    r"|private_?key|auth_?token|access_?token|refresh_?token|client_?secret|token|credentials?)"
)
_SECRET_HINTS = ("pass", "pwd", "secret", "key", "token", "credential")
_QUOTED_ASSIGNMENT = re.compile(
    r"(?i)(" + _SECRET_WORD + r"['\"]?\]?\s*(?:=>|:=|=|:)\s*)(['\"])([^'\"\n]{3,})(\2)"
)
_BARE_ASSIGNMENT = re.compile(
    r"(?im)^(\s*(?:export\s+)?[A-Za-z0-9_.\-]*" + _SECRET_WORD + r"\s*[=:]\s*)"
    r"([^\s'\"()\[\]{}<>;,$%#]{4,})\s*$"
)
_NAME_BEFORE = re.compile(r"['\"]?[A-Za-z0-9_.\-]*$")
_QUOTED_STRING = re.compile(r"(['\"`])([A-Za-z0-9+/=_\-]{20,})(\1)")

_PLACEHOLDER = re.compile(
    r"(?i)^(?:x+|\*+|\.+|-+|changeme|change_me|password|passwd|secret|token|example|test|dummy"
    r"|none|null|nil|true|false|undefined|redacted|your[_\-\s]?\w*|<[^>]*>|\{[^}]*\}|\$\{?.*"
    r"|%\(?\w*\)?s?|\[REDACTED:\w+\])$"
)


def redact(text: str) -> tuple[str, int]:
    """Return `text` with secrets replaced by `[REDACTED:<kind>]`, and how many were replaced."""
    count = 0

    def sub(pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str]) -> None:
        nonlocal count, text

        def counted(match: re.Match[str]) -> str:
            nonlocal count
            replacement = replace(match)
            if replacement != match.group(0):
                count += 1
            return replacement

        text = pattern.sub(counted, text)

    if "PRIVATE KEY" in text:
        sub(_PRIVATE_KEY, _redact_key_block)
    if "eyJ" in text:
        sub(_JWT, _redact_jwt)
    for kind, hints, pattern in _TOKEN_PATTERNS:
        if any(hint in text for hint in hints):
            sub(pattern, lambda _m, kind=kind: f"[REDACTED:{kind}]")
    if "AP" in text:
        sub(_ARTIFACTORY_PASSWORD, _redact_artifactory_password)
    if "_authToken=" in text:
        sub(_NPM_AUTH, lambda _m: "[REDACTED:npm_token]")
    if "://" in text:
        sub(_URL_PASSWORD, _redact_url_password)
    lowered = text.lower()
    if any(hint in lowered for hint in _SECRET_HINTS):
        sub(_QUOTED_ASSIGNMENT, _redact_quoted_assignment)
        sub(_BARE_ASSIGNMENT, _redact_bare_assignment)
    sub(_QUOTED_STRING, _redact_random_string)
    return text, count


def _redact_jwt(match: re.Match[str]) -> str:
    """A JWT when its header decodes to a JSON object (as detect-secrets checks)."""
    header = match.group(0).split(".", 1)[0].rstrip("=")
    try:
        decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    except (ValueError, UnicodeDecodeError):
        return match.group(0)
    return "[REDACTED:jwt]" if isinstance(decoded, dict) else match.group(0)


def _redact_artifactory_password(match: re.Match[str]) -> str:
    value = match.group(0)
    return "[REDACTED:artifactory_token]" if _looks_random(value) else value


def _redact_key_block(match: re.Match[str]) -> str:
    newlines = "".join(ch for ch in match.group(0) if ch == "\n")
    return "[REDACTED:private_key]" + newlines


def _redact_url_password(match: re.Match[str]) -> str:
    if _PLACEHOLDER.match(match.group(2)):
        return match.group(0)
    return f"{match.group(1)}[REDACTED:url_password]{match.group(3)}"


def _redact_quoted_assignment(match: re.Match[str]) -> str:
    value = match.group(3)
    before = _NAME_BEFORE.search(match.string, 0, match.start())
    assert before is not None  # the pattern matches the empty string too
    name = before.group(0) + match.group(1)
    if " " in value or _PLACEHOLDER.match(value) or value.lower() in name.lower():
        return match.group(0)
    return f"{match.group(1)}{match.group(2)}[REDACTED:secret]{match.group(4)}"


def _redact_bare_assignment(match: re.Match[str]) -> str:
    value = match.group(2)
    if _PLACEHOLDER.match(value) or not re.search(r"[0-9!@^&*+/=_\-~]", value):
        return match.group(0)
    if re.fullmatch(r"[A-Za-z_][\w.]*", value) and not re.search(r"\d", value):
        return match.group(0)
    return match.group(0).replace(value, "[REDACTED:secret]", 1)


def _redact_random_string(match: re.Match[str]) -> str:
    value = match.group(2)
    kind = _random_kind(value)
    if kind is None:
        return match.group(0)
    return f"{match.group(1)}[REDACTED:{kind}]{match.group(3)}"


def _random_kind(value: str) -> str | None:
    if len(value) >= 32 and re.fullmatch(r"[0-9a-fA-F]+", value):
        if _HEX.calculate_shannon_entropy(value) > _HEX.entropy_limit:
            return "hex_string"
        return None
    if len(value) < 24 or not _looks_random(value):
        return None
    if _BASE64.calculate_shannon_entropy(value) > _BASE64.entropy_limit:
        return "high_entropy_string"
    return None


def _looks_random(value: str) -> bool:
    """Random tokens mix digits and both cases and switch character class often; words don't."""
    if not (re.search(r"\d", value) and re.search(r"[a-z]", value) and re.search(r"[A-Z]", value)):
        return False
    classes = [
        "d" if c.isdigit() else "u" if c.isupper() else "l" if c.islower() else "s" for c in value
    ]
    switches = sum(1 for a, b in zip(classes, classes[1:], strict=False) if a != b)
    if switches / len(value) < 0.3:
        return False
    return not re.search(r"(?i)abcdef|bcdefg|0123456|123456789", value)
