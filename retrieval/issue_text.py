"""What a bug report says about where its code is: stack-trace frames, file paths and dotted
module paths it quotes, identifiers written as code, and its prose (read by BM25).

Pure text work, no database: `retrieval/locate.py` matches what is found here against the
index. The forms are those of the common languages' tracebacks and of how people quote code
(backticks, fenced blocks, `Class.method`, `call()`), not of any one project.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import chain

from retrieval.trace_frames import PATH, SOURCE_EXTENSIONS, Frame, normalize_path, read_traces

_PATH_ONLY = re.compile(rf"(?<![\w/.\\-])(?P<path>{PATH})(?![\w/\\])")
# a link to a file of a repository at a ref, the path after the ref (GitHub's blob, tree and raw
# pages and raw host, GitLab's `/-/blob/`): a report that links the code names the file
_LINKED = re.compile(
    r"https?://(?:www\.)?(?:github\.com/[\w.-]+/[\w.-]+/(?:blob|tree|raw)/[\w.-]+"
    r"|raw\.githubusercontent\.com/[\w.-]+/[\w.-]+/[\w.-]+"
    r"|[\w.-]+(?:/[\w.-]+)+/-/(?:blob|raw)/[\w.-]+)"
    rf"/(?P<path>[\w.@+-]+(?:/[\w.@+-]+)*\.(?:{SOURCE_EXTENSIONS}))(?![\w.])"
)
# a dotted name of at least three parts (`pkg.module.name`): a module path or a qualified name
_DOTTED = re.compile(r"(?<![\w.])(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,})(?![\w(])")
# fenced blocks: what `re.compile(r"```[^\n]*\n(?P<code>.*?)(?:```|$)", re.S)` matched, found by
# `_fences` in linear time (that regex read from every ``` of a last line without a newline to its
# end: 25 s for 64 KiB of backticks, issue 47)
_FENCE_MARK = "```"
# `code` and reStructuredText's ``code``
_BACKTICKS = re.compile(r"(?P<tick>``?)(?P<code>[^`\n]{1,200})(?P=tick)")
_IDENT = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")
# identifiers that are part of a language or of every call site, never a report's subject
_COMMON = frozenset(
    {
        "self",
        "cls",
        "this",
        "None",
        "True",
        "False",
        "null",
        "true",
        "false",
        "return",
        "import",
        "from",
        "def",
        "class",
        "print",
        "in",
        "is",
        "not",
        "and",
        "or",
        "if",
        "else",
        "for",
        "while",
        "with",
        "as",
        "lambda",
        "__init__",
        "__name__",
        "__main__",
        "Traceback",
    }
)


# What one report can make the lookups do is bounded whatever its text (issue 47: 60 KB of `a.`
# was one dotted name of 30,000 parts, read as 30,000 module paths of up to 60 KB each: 24 s
# and 0.9 GB per call). Real reports stay far inside these: the 236 of the localisation set hold
# at most 35 frames, 14 quoted paths, 6 dotted names (of at most 7 parts) and 415 identifiers; a
# path longer than MAX_PATH_CHARS (the MCP tools' own limit on a path) names no indexed file.
MAX_PATHS = 200
MAX_MODULES = 100
MAX_MODULE_PARTS = 16
MAX_PATH_CHARS = 1024
# identifiers kept (the first distinct ones; `locate` looks up the 200 most mentioned) and the
# longest one read (symbol names are at most 500 characters in the tools)
MAX_DISTINCT_IDENTIFIERS = 5000
MAX_IDENTIFIER_CHARS = 500


# A query is read as a bug report, not a question, when it spans several lines holding at least
# REPORT_WORDS words (a title and a body, a message and its traceback), or in one line is longer
# than questions are (the hand-written ones hold at most 57 words; SWE-bench's reports at least
# 41 in two lines or more): `search` answers a report with `locate`'s ranking.
REPORT_WORDS = 25
QUESTION_WORDS = 100


def is_report(text: str) -> bool:
    """Whether `text` reads as a pasted bug report rather than a question."""
    words = len(text.split())
    lines = sum(1 for line in text.splitlines() if line.strip())
    return words >= QUESTION_WORDS or (lines >= 2 and words >= REPORT_WORDS)


# The title: a report's first line, which says what is wrong in the fewest words (an issue's
# title, a commit's subject). GitHub cuts an issue title at 256 characters; a report that opens
# with a fenced block has none.
TITLE_CHARS = 256


def report_title(text: str) -> str:
    """The report's title: its first line that holds anything, unless it opens a fenced block."""
    first = text.lstrip().split("\n", 1)[0].strip()
    return "" if first.startswith(_FENCE_MARK) else first[:TITLE_CHARS]


# An issue template's boilerplate, which reports filed through one keep around what the reporter
# wrote: its instructions (HTML comments; GitHub's default template's sentences), its section
# headings, its checklists, and the environment it asks for (`- OS: macOS 14.2`, `numpy: 1.26.0`).
# None of it says where the code is, and its words (reproduce, sandbox, browser, version, arm64)
# occur in code, so BM25 follows them: around the fix messages of the mined test split, each of
# three templates cost `locate` about a tenth of its file Acc@5 (lab/LOG.md).
_COMMENT_OPEN, _COMMENT_CLOSE = "<!--", "-->"
# a section heading of words alone, `##` to `######` (templates' sections are `###`; a single
# `#` starts a comment line of the code a report quotes without fences, `# Primary key
# renamed`; git's `#\tpath` conflict lists and `#0` frames are no headings; `## models.py`,
# `## Foo.bar() fails` name code); a template's question may end by quoting the command that
# answers it (Go's "What version of Go are you using (`go version`)?")
_HEADING = re.compile(
    r"^[ \t]{0,3}#{2,6} +(?=[^\n]*[^\W_])[^\n./()=`_:]*(?:\(`[^`\n]{1,40}`\)\?)?:?[ \t]*$", re.M
)
# a line that is only a bold or underlined phrase, GitHub's default template's headings
_BOLD_LINE = re.compile(r"^[ \t]*(?:\*\*|__)[^*_\n]{1,80}(?:\*\*|__)[ \t]*:?[ \t]*$", re.M)
_TASK = re.compile(r"^[ \t]*[-*+][ \t]+\[[ xX]\][ \t].*$", re.M)
_ENVIRONMENT_KEYS = (
    r"os|operating system|platform|arch(?:itecture)?|cpu|memory|device|browsers?|shell|kernel"
    r"|node(?:\.js|js)?|npm|yarn|pnpm|bun|deno|python|pip|conda|go|rustc|cargo|java|jdk|jre|jvm"
    r"|kotlin|gradle|maven|\.net|dotnet|php|ruby|rails|gcc|clang|cmake|msvc|compiler|ide"
    r"|version|[\w.@/-]{1,40} version"
)
# `- OS: macOS 14.2`, `  Browser: Chrome 120`, `numpy: 1.26.0`, `- sklearn: 0.21.dev0`,
# `pandas: None`: a key the templates ask for with any value in a list item or an indented line
# (a title `python: fix …` is a component's name), or a key of one to three words with a version
# or `None`; and an environment variable's quoted value as a tool prints its settings
# (`go env`'s `GOARCH="amd64"`, `set GOPATH="C:\go"`)
_ENVIRONMENT = re.compile(
    rf"^(?:[ \t]*[-*+][ \t]+|[ \t]+)(?:\*\*)?(?i:{_ENVIRONMENT_KEYS})(?:\*\*)?[ \t]*:.*$"
    r"|^[ \t]*(?:[-*+][ \t]+)?(?:\*\*)?[\w.()/@+-]+(?: [\w.()/@+-]+){0,2}(?:\*\*)?:[ \t]*"
    r"(?:v?\d+\.\d+\S*|None|N/A)(?:[ \t].*)?$"
    r"|^[ \t]*(?:set |export )?[A-Z][A-Z0-9_]{1,40}=(?:\"[^\"\n]*\"|'[^'\n]*')[ \t]*$"
    r"|^[ \t]*go version go\d[\w.]* \w+/\w+[ \t]*$",
    re.M,
)
_TEMPLATE_SENTENCES = re.compile(
    r"A clear and concise description of[^.\n]*\.?|Steps to reproduce the behaviou?r:?"
    r"|If applicable, add screenshots[^.\n]*\.?|Add any other context about[^.\n]*\.?"
    r"|\(please complete the following information\):?|\[e\.g\.[^\]\n]{0,80}\]"
    # GitHub's default template's placeholder steps, and what its issue forms write for a field
    # left empty; the tags that fold a section away
    r"|(?m:^[ \t]*\d\.[ \t]+(?:Go to|Click on|Scroll down to) '\.+'[ \t]*$)"
    r"|(?m:^[ \t]*\d\.[ \t]+See error[ \t]*$)|_No response_|</?(?:details|summary)>"
    # screenshots: `![image](https://…)` and GitHub's `<img width=… alt=… src=…>`
    r"|!\[[^\]\n]{0,200}\]\([^)\s]{0,1000}\)|<img\b[^>\n]{0,2000}>",
    re.I,
)

# The banner an interactive interpreter prints before the session a report pastes, in or out of
# fences: Python's (its build line, `[GCC …] on linux`, `Type "help", "copyright", …`),
# IPython's (its version line and help menu) and Node's. Its words (copyright, license, help,
# interactive, features, reference) occur in code; the prompts and what follows them are kept.
_REPL_BANNER = re.compile(
    r"^[ \t]*(?:"
    r"Python \d+\.\d+\.\d+\S*[ \t]+(?:\|[^|\n]{0,80}\|[ \t]+)?\([^)\n]{0,80}\d:\d\d\)"
    r"(?:[ \t]*\[[^\]\n]{0,120}\](?: on \w+)?)?"
    r"|\[(?:GCC|Clang|MSC)[^\]\n]{0,120}\] on \w+"
    r"|Type (?:[\"']help[\"'], )?[\"']copyright[\"'], [\"']credits[\"'] or [\"']license[\"'][^\n]*"
    r"|IPython \d[\w.+-]* -- An enhanced Interactive Python\.[^\n]*"
    r"|\?[ \t]+-> Introduction and overview of IPython's features\."
    r"|%quickref -> Quick reference\.|help[ \t]+-> Python's own help system\."
    r"|object\?[ \t]+-> Details about 'object'[^\n]*"
    r"|Welcome to Node\.js v\d[\w.]*\.?|Type \"\.help\" for more information\."
    r")[ \t]*\r?$\n?",
    re.M,
)


def _without_comments(text: str) -> str:
    """`text` without its HTML comments (an unclosed one runs to the end); linear time."""
    pieces: list[str] = []
    last = 0
    start = text.find(_COMMENT_OPEN)
    while start >= 0:
        pieces.append(text[last:start])
        close = text.find(_COMMENT_CLOSE, start + len(_COMMENT_OPEN))
        if close < 0:
            return "".join(pieces)
        last = close + len(_COMMENT_CLOSE)
        start = text.find(_COMMENT_OPEN, last)
    return "".join(pieces) + text[last:]


def _prose_without_template(prose: str, *, leading: bool) -> str:
    """`prose` without the template's lines; the first line that holds anything in the
    `leading` prose is the title, never read as an environment line (`python: fix …`, `go: 1.22
    breaks …` name a component)."""
    prose = _without_comments(prose)
    for pattern in (_HEADING, _BOLD_LINE, _TASK, _TEMPLATE_SENTENCES):
        prose = pattern.sub("", prose)
    title_end = prose.find("\n", len(prose) - len(prose.lstrip())) if leading else 0
    if title_end < 0:
        return prose
    return prose[:title_end] + _ENVIRONMENT.sub("", prose[title_end:])


# the label of a group of an environment dump (`System:`, `Binaries:`, `Python deps:`)
_GROUP_LABEL = re.compile(r"[ \t]*[A-Za-z][\w -]{0,30}:[ \t]*")


def _is_environment(code: str) -> bool:
    """A fenced block that is an environment dump (`npx envinfo`, `show_versions()`): most of
    its lines are environment lines or the labels of their groups, and the environment lines
    outnumber the labels (a code block's `else:` and `try:` lines are no dump)."""
    lines = [line for line in code.splitlines() if line.strip()]
    values = sum(1 for line in lines if _ENVIRONMENT.fullmatch(line))
    labels = sum(1 for line in lines if _GROUP_LABEL.fullmatch(line))
    return values >= 2 and values >= labels and values + labels >= 0.6 * len(lines)


def without_template(text: str) -> str:
    """The report without its issue template's boilerplate: instructions, section headings,
    checklists and environment lines, outside fenced code (a `#` line in a fence is code), and
    fenced environment dumps; an interpreter's banner wherever it is."""
    text = _REPL_BANNER.sub("", text)
    pieces: list[str] = []
    last = 0
    for start, end, code in _fences(text):
        pieces.append(_prose_without_template(text[last:start], leading=last == 0))
        if code.strip() and not _is_environment(code):  # (a banner alone leaves it empty)
            pieces.append(text[start:end])
        last = end
    return "".join(pieces) + _prose_without_template(text[last:], leading=last == 0)


@dataclass
class IssueEvidence:
    """What a report says about where its code is."""

    frames: list[Frame] = field(default_factory=list[Frame])
    paths: list[str] = field(default_factory=list[str])  # quoted paths, outside frames
    modules: list[str] = field(default_factory=list[str])  # dotted names as module paths
    identifiers: dict[str, int] = field(default_factory=dict[str, int])  # name -> mentions


def _fences(text: str) -> list[tuple[int, int, str]]:
    """(start, end, code) of each fenced block: from ``` and the rest of its line to the next
    ``` or the end of the text (before a final newline), as the regex above matched them."""
    found: list[tuple[int, int, str]] = []
    start = text.find(_FENCE_MARK)
    while start >= 0:
        line_end = text.find("\n", start + len(_FENCE_MARK))
        if line_end < 0:
            break  # every later ``` is on this same last line, which has no newline
        code_start = line_end + 1
        close = text.find(_FENCE_MARK, code_start)
        if close >= 0:
            end, code_end = close + len(_FENCE_MARK), close
        else:
            # (the regex's `$` matched before a final newline)
            final_newline = text.endswith("\n") and code_start < len(text)
            code_end = end = len(text) - 1 if final_newline else len(text)
        found.append((start, end, text[code_start:code_end]))
        start = text.find(_FENCE_MARK, max(end, start + 1))
    return found


def _without_fences(text: str, fences: list[tuple[int, int, str]]) -> str:
    """`text` with each fenced block replaced by a space."""
    pieces: list[str] = []
    last = 0
    for start, end, _code in fences:
        pieces += [text[last:start], " "]
        last = end
    return "".join(pieces) + text[last:]


def _code_spans(text: str) -> list[str]:
    """Text written as code: fenced blocks, backticked spans, and indented or prompt lines."""
    fences = _fences(text)
    spans = [code for _start, _end, code in fences]
    spans += [m["code"] for m in _BACKTICKS.finditer(_without_fences(text, fences))]
    spans += [
        line
        for line in text.splitlines()
        if line.startswith(("    ", "\t", ">>> ", "... ", "In ["))
    ]
    return spans


def _looks_like_code(name: str) -> bool:
    """snake_case, camelCase / CamelCase with two humps, dotted, or dunder: code in prose."""
    bare = name.strip("_")
    return (
        "." in name
        or "_" in bare
        or re.search(r"[a-z][A-Z]", name) is not None
        or re.fullmatch(r"[A-Z][a-z0-9]+[A-Z]\w*", name) is not None
        or re.fullmatch(r"[A-Z]{2,}[a-z]\w*", name) is not None  # HTTPAdapter
    )


def _identifiers(text: str, code: list[str]) -> dict[str, int]:
    """Identifier mentions: every name inside code, and names in prose that look like code;
    `self.x` counts as `x`, `a.b.c` also as `b.c` and `c` (a qualified name's tail)."""
    counts: dict[str, int] = {}

    def add(name: str) -> None:
        if len(name) > MAX_IDENTIFIER_CHARS:
            return
        if len(counts) >= MAX_DISTINCT_IDENTIFIERS and name not in counts:
            return
        parts = [p for p in name.split(".") if p]
        while parts and parts[0] in ("self", "cls", "this"):
            parts = parts[1:]
        if not parts or parts[-1] in _COMMON or len(parts[-1]) < 2:
            return
        for i in range(max(0, len(parts) - 2), len(parts)):
            tail = ".".join(parts[i:])
            counts[tail] = counts.get(tail, 0) + 1

    for span in code:
        for m in _IDENT.finditer(span):
            add(m.group())
    prose = _BACKTICKS.sub(" ", _without_fences(text, _fences(text)))
    for m in re.finditer(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\(\))?", prose):
        name = m.group().removesuffix("()")
        if _looks_like_code(name) or m.group().endswith("()"):
            add(name)
    return counts


def _python(frame: Frame) -> bool:
    return frame.path.endswith((".py", ".pyx", ".pyi"))


def read_issue(text: str) -> IssueEvidence:
    """Frames, quoted paths, dotted module names and identifiers of a bug report."""
    traces = read_traces(text)
    frames = traces.frames
    # the paths the traces wrote are read; a dependency's path inside its package, written
    # apart in the prose (`tracker/parser.py`), is a quoted path of its own
    framed = {f.quoted for f in frames} | {f.path for f in frames if not f.dependency}
    paths: list[str] = []
    # the files the report links, then the paths it writes
    for m in chain(_LINKED.finditer(text), _PATH_ONLY.finditer(text)):
        if len(paths) >= MAX_PATHS:
            break
        path = normalize_path(m["path"])
        if len(path) <= MAX_PATH_CHARS and path not in framed and path not in paths:
            paths.append(path)
    modules: list[str] = []
    for m in _DOTTED.finditer(text):
        if len(modules) >= MAX_MODULES:
            break
        name = m["name"]
        too_deep = name.count(".") >= MAX_MODULE_PARTS or len(name) > MAX_PATH_CHARS
        instance = name.split(".")[0] in ("self", "cls", "this")
        if not too_deep and not instance and name not in modules:
            modules.append(name)
    identifiers = _identifiers(text, _code_spans(text))
    # the functions the traces of other languages name (`ns::Class::method`, `pkg.(*T).Method`,
    # a PHP frame's callee) as `Class.method`, which the identifiers read from code do not form;
    # Python's frames are left as they were measured (their names are written as in the code)
    named = [f.function for f in frames if f.function and not f.dependency and not _python(f)]
    for name in traces.named + named:
        if name not in identifiers and name.rsplit(".", 1)[-1] not in _COMMON:
            identifiers[name] = 1
    return IssueEvidence(frames=frames, paths=paths, modules=modules, identifiers=identifiers)
