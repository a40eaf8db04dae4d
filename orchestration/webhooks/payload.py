"""Reading an untrusted request body as JSON within bounds, and writing untrusted text to logs.

A body is refused before parsing when its arrays and objects nest deeper than any push payload
does (hosts nest about 6 levels); otherwise a few hundred kilobytes of `[[[[...` would exhaust the
parser's recursion. Values from the body go into log lines escaped, so they cannot forge lines.
"""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs

import numpy as np

from orchestration.webhooks.providers import MalformedEvent

MAX_DEPTH = 64
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = np.zeros(256, dtype=np.int8)
_STEP[list(b"[{")] = 1
_STEP[list(b"]}")] = -1


def nesting_depth(text: bytes) -> int:
    """How deep arrays and objects nest in a JSON text (brackets inside strings don't count)."""
    brackets = _JSON_STRING.sub(b"", text).translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    steps = _STEP[np.frombuffer(brackets, dtype=np.uint8)].astype(np.int32)
    return int(np.cumsum(steps).max())


def _loads(text: bytes) -> object:
    if nesting_depth(text) > MAX_DEPTH:
        raise MalformedEvent(f"the JSON nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except RecursionError:  # the depth check should make this unreachable
        raise MalformedEvent(f"the JSON nests deeper than {MAX_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError):
        raise MalformedEvent("the body is not JSON") from None


def decode(body: bytes, content_type: str) -> object:
    """JSON, or GitHub's form encoding (`payload=<json>`); MalformedEvent when it is neither."""
    if content_type.startswith("application/x-www-form-urlencoded"):
        try:
            form = parse_qs(body.decode("utf-8"), max_num_fields=100)
        except (UnicodeDecodeError, ValueError):
            raise MalformedEvent("the form body is not valid") from None
        if "payload" not in form:
            raise MalformedEvent("form-encoded body without a payload field")
        return _loads(form["payload"][0].encode("utf-8", "surrogatepass"))
    return _loads(body)


def loggable(value: object, limit: int = 200) -> str:
    """`value` as one printable line: control and invisible characters escaped, cut at `limit`."""
    text = str(value)[:limit]
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
