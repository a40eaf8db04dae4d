"""A small real repository for `locate`: a package with a dozen modules, its tests, and a
vendored copy of another library that uses the same words; and a bug report about it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.retrieval.conftest import IndexedRepo
from tests.retrieval.indexing import fake_embedder, index_repository

PARSER = '''"""Parse the header lines of a tracker message."""


def split_header(line):
    """Split one header line into its name and value."""
    name, _, value = line.partition(":")
    return name.strip().lower(), value.strip()


def parse_header(lines):
    """The headers of a message as a dict; a repeated header keeps its last value."""
    headers = {}
    for line in lines:
        if not line.strip():
            break
        name, value = split_header(line)
        headers[name] = value.decode("latin-1")
    return headers
'''

VENDORED_PARSER = '''"""A copy of textlib's header parser, shipped inside tracker."""


def parse_header(lines):
    """Header lines of a message as a dict of name to value, decoded from latin-1."""
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return headers


def parse_header_value(value):
    """A header value and its parameters (message header lines, decoded)."""
    return value.split(";")[0].strip()
'''

TESTS = '''from tracker.parser import parse_header, split_header


def test_parse_header_decodes_a_header_value():
    """A header line of a message: parse_header decodes the header value."""
    assert parse_header(["Subject: hello"]) == {"subject": "hello"}


def test_parse_header_stops_at_the_blank_line_of_a_message():
    assert parse_header(["Subject: a", "", "Body: b"]) == {"subject": "a"}


def test_split_header_lowercases_the_header_name():
    assert split_header("Subject: hello") == ("subject", "hello")
'''

MODULES = {
    "tracker/__init__.py": '"""tracker: issues in messages."""\n',
    "tracker/inbox.py": (
        "from tracker.parser import parse_header\n\n\n"
        "def read_message(raw):\n"
        '    """A message from raw text: its header lines, then its body."""\n'
        '    head, _, body = raw.partition("\\n\\n")\n'
        '    return parse_header(head.split("\\n")), body\n'
    ),
    "tracker/issues.py": (
        "class Issue:\n"
        '    """One tracked issue: a title, a state and its messages."""\n\n'
        "    def __init__(self, title):\n"
        "        self.title = title\n"
        '        self.state = "open"\n'
        "        self.messages = []\n\n"
        "    def close(self):\n"
        '        self.state = "closed"\n'
    ),
    "tracker/labels.py": "def label_colour(label):\n    return hash(label) % 0xFFFFFF\n",
    "tracker/users.py": "def display_name(user):\n    return user.get('name') or user['login']\n",
    "tracker/storage.py": (
        "def save_issue(store, issue):\n    store[issue.title] = issue\n    return issue\n"
    ),
    "tracker/search.py": (
        "def find_issues(store, word):\n    return [i for t, i in store.items() if word in t]\n"
    ),
    "tracker/notify.py": (
        "def notify(user, issue):\n    return f'{user}: {issue.title} is {issue.state}'\n"
    ),
    "tracker/export.py": (
        "def export_csv(issues):\n    return '\\n'.join(f'{i.title},{i.state}' for i in issues)\n"
    ),
    "tracker/timeline.py": ("def timeline(issue):\n    return list(enumerate(issue.messages))\n"),
    "tracker/mailer.py": (
        "def reply_header(message):\n    return 'Re: ' + message.get('subject', '')\n"
    ),
    "tracker/cli.py": (
        "import sys\n\nfrom tracker.inbox import read_message\n\n\n"
        "def main():\n    print(read_message(sys.stdin.read()))\n"
    ),
    "tracker/parser.py": PARSER,
    "tracker/packages/textlib/__init__.py": '"""textlib, vendored."""\n',
    "tracker/packages/textlib/headers.py": VENDORED_PARSER,
    "tests/test_parser.py": TESTS,
    "docs/conf.py": "project = 'tracker'\n# header parsing of messages is documented here\n",
}

REPORT = """parse_header fails on a message whose header value is already text

Reading a message with a header line crashes. Steps: feed any message to the inbox.

```
Traceback (most recent call last):
  File "/home/ann/venv/lib/python3.11/site-packages/tracker/inbox.py", line 7, in read_message
    return parse_header(head.split("\\n")), body
  File "/home/ann/venv/lib/python3.11/site-packages/tracker/parser.py", line 17, in parse_header
    headers[name] = value.decode("latin-1")
AttributeError: 'str' object has no attribute 'decode'
```

The header value is decoded from latin-1 in `tracker/parser.py` although split_header already
returns text. The tests of header parsing pass because they never feed a decoded value.
"""

# the same bug in words only: no frame, no path, no identifier written as code
WORDS_REPORT = (
    "Reading the header lines of a message fails: the header value is decoded from latin-1 "
    "although it is already text. Every message with a header crashes."
)


@pytest.fixture
def tracker_repo(settings_env: Path, database_url: str, git_repo) -> IndexedRepo:
    """The tracker repository, committed and indexed with the fake embedder."""
    for path, text in MODULES.items():
        git_repo.write(path, text)
    sha = git_repo.commit("tracker")
    index_repository(database_url, git_repo.path, "tracker", embedder=fake_embedder())
    return IndexedRepo(database_url, "tracker", sha, git_repo.path)
