"""What a commit message says: whether it reports a fix worth mining, and its text as a query.

A message is mined when it references an issue or pull request (`#123`, `GH-123`, `fixes`,
`closes`, an issue URL) or describes a fix (`fix`, `bug`, `crash`, `panic`, `error`, `wrong`,
`incorrect`, `regression`, ...), and is not a merge of a branch, a revert, a version bump, a
dependency update or a formatting change. The query is the title and body without what
describes the commit rather than the problem: trailers, pull-request template boilerplate, the
`(#123)` suffix and the `Merge pull request #N from user/branch` line of a merge commit.
"""

from __future__ import annotations

import re

MIN_QUERY_WORDS = 8
MAX_QUERY_CHARS = 2000

_ISSUE_REFERENCE = re.compile(
    r"(^|[\s(\[,;:])#\d+\b|\bGH-\d+\b|github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+"
    r"|\b(fix(es|ed)?|close[sd]?|resolve[sd]?)\s+([\w.-]+/[\w.-]+)?#\d+",
    re.IGNORECASE,
)
_FIX_WORDS = re.compile(
    r"\b(fix(e[sd])?|fixing|bugs?|bugfix|crash(es|ed|ing)?|panic(s|ked)?|errors?|wrong|"
    r"incorrect(ly)?|regress(ion|ions|ed)?|broken|break(s|ing)?|fail(s|ed|ing|ure)?|"
    r"exceptions?|leak(s|ed|ing)?|segfaults?|hang(s|ing)?|deadlocks?|overflows?|invalid|"
    r"mistakes?|unexpected(ly)?|issues?)\b",
    re.IGNORECASE,
)
_MERGE_BRANCH = re.compile(
    r"^Merge (branch|remote-tracking branch|tag|commit|changes|upstream)\b|^Merge .+ into \S+$"
    r"|^Merge (main|master|develop|dev)\b",
    re.IGNORECASE,
)
_MERGE_PULL = re.compile(
    r"^Merge (pull request|PR) #?\d+ (from|of) \S+\s*$|^Merged? in \S+ \(pull request #\d+\)",
    re.IGNORECASE,
)
_REVERT = re.compile(r"^(Revert|Reapply|Revert\s*\")|\bThis reverts commit [0-9a-f]{7,}", re.I)
_VERSION = re.compile(
    r"^(\[?release\]?|v?\d+\.\d+(\.\d+)?([-.\w]*)?$|(bump|release|prepare|preparing|tag|tagged|"
    r"publish|cut)\b.*\bv?\d+\.\d+|version (bump|\d)|bump(ed)? (the )?version|(update|add) "
    r"(the )?changelog|changelog\b|release notes|back to (dev|development|snapshot))",
    re.IGNORECASE,
)
_DEPENDENCIES = re.compile(
    r"dependabot|renovate|^(chore|build|fix)\((deps|dependencies|deps-dev)\)|\bbump\b.+\bfrom\b"
    r".+\bto\b|\b(update|upgrade|bump)s? (the )?(dependency|dependencies|deps|lockfile|lock file)"
    r"|\[Snyk\]|^(update|upgrade|bump) [\w@/.-]+ to v?\d",
    re.IGNORECASE,
)
_FORMATTING = re.compile(
    r"^(style|format|reformat|lint|linting|prettier|black|isort|clang-format|rustfmt|gofmt|"
    r"cargo fmt|php-cs-fixer|cs fix|cs:|whitespace)\b|\b(typos?|spelling|reformat(ted)?|"
    r"run (black|prettier|rustfmt|gofmt|clang-format))\b",
    re.IGNORECASE,
)
# conventional-commit types that say the change is not a behaviour change of the code
_NOT_BEHAVIOUR = re.compile(
    r"^(docs?|chore|ci|build|test|tests|style|refactor|release|deps)(\([^)]*\))?!?:", re.I
)
_BOT = re.compile(r"\[bot\]|^(dependabot|renovate|github-actions|greenkeeper)\b", re.IGNORECASE)

# trailers (`Signed-off-by: ...`) and reference-only lines (`Fixes #12`, `Closes: url`)
_TRAILER = re.compile(
    r"^\s*([A-Z][\w-]*-(by|to|of)|Change-Id|Cc|PR-URL|Refs?|References?|Fixes|Closes|Resolves|"
    r"See(-also)?|Link|Bug|Issue|Ticket|Jira|Backport|Pull-request|Reviewed-on|Co-Authored-By|"
    r"Signed-off-by|Release-note|Changelog|Part-of|Related|Ref|Test(ed)?|Type|Notes?)\s*:\s*\S",
    re.IGNORECASE,
)
_REFERENCE_ONLY = re.compile(
    r"^\s*[-*]?\s*((fix(es|ed)?|close[sd]?|resolve[sd]?|refs?|see|related( to)?|part of|"
    r"closes?|for|re|backport of|cherry[- ]picked from[^)]*)[\s:]*)?"
    r"([\w.-]+/[\w.-]+)?(#\d+|GH-\d+|https?://\S+|commit [0-9a-f]{7,40})"
    r"([\s,;.)]+(and\s+)?([\w.-]+/[\w.-]+)?(#\d+|https?://\S+))*[\s.)]*$",
    re.IGNORECASE,
)
_TEMPLATE_LINE = re.compile(
    r"^\s*([-*]\s*\[[ xX]\]|#{1,6}\s*(checklist|description|summary|motivation|changes|"
    r"what|why|how|related issues?|issue|testing|test plan|screenshots?|notes?|context|"
    r"type of change|pr checklist|additional|proposed changes|changelog|release notes|fixes|"
    r"closes|background|details)\b[^\n]*$|(thank you for|thanks for (your|the) contribution|"
    r"please (make sure|read|check|describe|provide|ensure|delete|fill)|before submitting|"
    r"this pr (template|checklist)|by submitting|i have (read|added|run|updated|tested)|"
    r"delete this|remove this|replace this))",
    re.IGNORECASE,
)
_REVIEW_NOISE = re.compile(
    r"^\s*[-*]?\s*((address(ed)? (review|comments|feedback)|review (comments|feedback)|"
    r"apply suggestions? from code review|merge (branch|remote-tracking)|fixup!|squash!|"
    r"co-authored-by|signed-off-by|\(cherry picked from).*|(wip|update [\w./-]+|lint|format|"
    r"cleanup|clean up|typo|fmt|nits?|oops|more|tweak|try again|retry|rerun|ci|"
    r"fix (ci|lint|tests?|build|formatting|typo)|changelog|add changelog( entry)?|"
    r"update changelog|docs|tests?|add tests?)\s*[.!]*)$",
    re.IGNORECASE,
)
_PR_SUFFIX = re.compile(r"\s*\((#\d+|GH-\d+|[\w.-]+/[\w.-]+#\d+)([,\s]+#\d+)*\)\s*$")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def skip_reason(message: str, author: str = "") -> str | None:
    """Why the message is not a fix worth mining, or None when it is."""
    lines = [line.strip() for line in message.strip().splitlines()]
    title = lines[0] if lines else ""
    if _BOT.search(author):
        return "bot"
    if _MERGE_BRANCH.match(title) and not _MERGE_PULL.match(title):
        return "merge_of_branch"
    if _REVERT.search(message):
        return "revert"
    if _DEPENDENCIES.search(title):
        return "dependency_update"
    content_title = _content_title(lines)
    if _VERSION.match(content_title):
        return "version_bump"
    if _FORMATTING.search(content_title):
        return "formatting"
    if _NOT_BEHAVIOUR.match(content_title):
        return "not_behaviour"
    if not (_ISSUE_REFERENCE.search(message) or _FIX_WORDS.search(message)):
        return "not_a_fix"
    if len(_WORD.findall(clean_query(message))) < MIN_QUERY_WORDS:
        return "short_message"
    return None


def _content_title(lines: list[str]) -> str:
    """The title that says what changed: a merge's pull-request line gives way to its body."""
    rest = [line for line in lines if line]
    if rest and _MERGE_PULL.match(rest[0]):
        rest = rest[1:]
    return rest[0] if rest else ""


def clean_query(message: str) -> str:
    """Title and body of the message without trailers, template text and reference suffixes."""
    text = _HTML_COMMENT.sub("", message.replace("\r\n", "\n"))
    lines = [line.rstrip() for line in text.strip().splitlines()]
    while lines and (not lines[0].strip() or _MERGE_PULL.match(lines[0].strip())):
        lines = lines[1:]
    if not lines:
        return ""
    title = _PR_SUFFIX.sub("", lines[0].strip())
    kept = [title]
    for line in lines[1:]:
        stripped = line.strip()
        if not stripped:
            if kept[-1]:
                kept.append("")
            continue
        if (
            _TRAILER.match(stripped)
            or _REFERENCE_ONLY.match(stripped)
            or _TEMPLATE_LINE.match(stripped)
            or _REVIEW_NOISE.match(stripped)
            or set(stripped) <= set("-=*_#~` ")
        ):
            continue
        line_text = _PR_SUFFIX.sub("", stripped)
        # a squash merge's body lists its commits, the first often the title again
        if line_text.lstrip("*- ").strip() == title:
            continue
        kept.append(line_text)
    query = "\n".join(kept).strip()
    query = re.sub(r"\n{3,}", "\n\n", query)
    return query[:MAX_QUERY_CHARS].strip()
