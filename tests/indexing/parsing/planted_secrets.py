"""One planted secret per detect-secrets plugin (and a few more formats): deterministic fake
values, each as (kind, the secret itself, a line of code that holds it)."""

from __future__ import annotations

import random
import string

_rng = random.Random(13)
_ALNUM = string.ascii_letters + string.digits
_LOWER = string.ascii_lowercase + string.digits


def _r(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _planted() -> list[tuple[str, str, str]]:
    jwt = (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9l"
        "IiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    )
    unsigned_jwt = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."
    values = {
        "artifactory": "AKCp" + _r(69),
        "aws_access_key": "AKIA" + _r(16, string.ascii_uppercase + string.digits),
        "azure_storage_key": _r(86) + "==",
        "basic_auth": _r(14),
        "discord": "M" + _r(23) + "." + _r(6) + "." + _r(27),
        "github": "ghp_" + _r(36),
        "gitlab": "glpat-" + _r(20),
        "base64_entropy": _r(56, _ALNUM + "+/"),
        "hex_entropy": _r(40, "0123456789abcdef"),
        "jwt": jwt,
        "jwt_unsigned": unsigned_jwt,
        "keyword": _r(14),
        "mailchimp": _r(32, _LOWER) + "-us12",
        "npm": "npm_" + _r(36),
        "openai": "sk-" + _r(20) + "T3BlbkFJ" + _r(20),
        "openai_project": "sk-proj-" + _r(48),
        "private_key": "MIIEow" + _r(40),
        "pypi": "pypi-AgEIcHlwaS5vcmc" + _r(70),
        "sendgrid": "SG." + _r(22) + "." + _r(43),
        "slack": "xoxb-" + _r(12, string.digits) + "-" + _r(24, _LOWER),
        "softlayer": _r(64, _LOWER),
        "square": "sq0csp-" + _r(43),
        "stripe": "sk_live_" + _r(24),
        "telegram": _r(9, string.digits) + ":" + _r(35),
        "twilio": "AC" + _r(32, _LOWER),
        "ibm_cloud_iam": _r(44),
        "cloudant": _r(24, _LOWER),
    }
    v = values
    lines = {
        "artifactory": f"ARTIFACTORY = {v['artifactory']}",
        "aws_access_key": f'aws_id = "{v["aws_access_key"]}"',
        "azure_storage_key": f'conn = "AccountName=a;AccountKey={v["azure_storage_key"]};x=y"',
        "basic_auth": f'url = "https://admin:{v["basic_auth"]}@db.example.com/app"',
        "discord": f'bot = "{v["discord"]}"',
        "github": f'gh = "{v["github"]}"',
        "gitlab": f'gl = "{v["gitlab"]}"',
        "base64_entropy": f'blob = "{v["base64_entropy"]}"',
        "hex_entropy": f'digest = "{v["hex_entropy"]}"',
        "jwt": f'headers = {{"Authorization": "Bearer {v["jwt"]}"}}',
        "jwt_unsigned": f'token = "{v["jwt_unsigned"]}"',
        "keyword": f'db_password = "{v["keyword"]}"',
        "mailchimp": f'mc = "{v["mailchimp"]}"',
        "npm": f'npmrc = "//registry.npmjs.org/:_authToken={v["npm"]}"',
        "openai": f'oa = "{v["openai"]}"',
        "openai_project": f'oa = "{v["openai_project"]}"',
        "private_key": f'pem = "-----BEGIN RSA PRIVATE KEY-----\\n{v["private_key"]}"',
        "pypi": f'pp = "{v["pypi"]}"',
        "sendgrid": f'sg = "{v["sendgrid"]}"',
        "slack": f'sl = "{v["slack"]}"',
        "softlayer": f'u = "https://api.softlayer.com/soap/v3/{v["softlayer"]}"',
        "square": f'sq = "{v["square"]}"',
        "stripe": f'st = "{v["stripe"]}"',
        "telegram": f'tg = "{v["telegram"]}"',
        "twilio": f'tw = "{v["twilio"]}"',
        "ibm_cloud_iam": f'ibm_cloud_iam_api_key = "{v["ibm_cloud_iam"]}"',
        "cloudant": f'cloudant_password = "{v["cloudant"]}"',
    }
    return [(kind, values[kind], lines[kind]) for kind in values]


PLANTED = _planted()


def planted_module() -> str:
    """A Python module with one function per planted secret (and one as a call receiver)."""
    parts = ['"""Configuration with secrets that must never be stored."""\n']
    for kind, _secret, line in PLANTED:
        parts.append(f"\ndef config_{kind}():\n    {line}\n    return locals()\n")
    aws = next(secret for kind, secret, _ in PLANTED if kind == "aws_access_key")
    parts.append(f'\ndef receiver_literal():\n    return "{aws}".lower()\n')
    return "".join(parts)
