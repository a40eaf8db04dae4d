"""Stack frames and diagnostics of every language a report may paste: where the failure passed.

Python tracebacks, Java/Kotlin/Scala and C# stack traces, Go panics and goroutine dumps, Rust
panics and backtraces, Node and browser traces, C/C++ (gdb, sanitizers, valgrind), Ruby, PHP,
and compiler diagnostics (`file:line:col: error`, `file(line,col): error`). Each frame is a path
(matched against the index by suffix, `retrieval/locate.py`), the line, and the function it
names written as `Class.method` whatever the language's own separator (`ns::Class::method`,
`pkg.(*T).Method`, `Class#method`, `Class->method`). A frame inside a dependency (site-packages,
node_modules, the Go module cache or GOROOT, ~/.cargo/registry, /rustc/..., the JDK, vendor/,
gems) keeps only its path inside that package and is matched whole: it names this repository's
file only when the repository is that package.

The text is read line by line, each line at most MAX_LINE characters and each pattern anchored
at a place that cannot start again inside the same token, so reading is linear in the report's
length; at most MAX_FRAMES frames are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from retrieval.trace_names import (
    colons_name,
    dotnet_name,
    go_name,
    java_name,
    js_name,
    php_name,
    ruby_name,
)

# the forms a frame is read from (`Frame.kind`): native is gdb's and the sanitizers' `#N`;
# diagnostic any other `path:line` or `path(line,col)` (compilers, linters, test runners)
KINDS = (
    "python",
    "java",
    "dotnet",
    "node",
    "browser",
    "go",
    "rust",
    "native",
    "valgrind",
    "windows",
    "ruby",
    "php",
    "diagnostic",
)
# frames read per report: a trace longer than this repeats itself (recursion, goroutine dumps)
MAX_FRAMES = 200
# characters of a line read: a frame fits; a minified bundle pasted as one line is not a frame
MAX_LINE = 2000

# extensions of source files a report may quote (a path ending otherwise is a data file, a URL)
SOURCE_EXTENSIONS = (
    "py|pyi|pyx|js|mjs|cjs|jsx|ts|mts|cts|tsx|vue|svelte|go|java|kt|kts|scala|groovy|rs|rb|rake"
    "|erb|php|cs|fs|vb|c|h|cc|cpp|hpp|cxx|hxx|hh|inl|swift|m|mm|lua|ex|exs|dart"
)
# (starting only where a path can start: a regex free to start inside a word backtracks over
# every character of a long report)
PATH = rf"(?<![\w.~@+/\\-])(?:[A-Za-z]:)?[\w.~@+-]*(?:[/\\][\w.@+-]+)*\.(?:{SOURCE_EXTENSIONS})"
_SOURCE_PATH = re.compile(rf"(?:[A-Za-z]:)?[^\s:()]*\.(?:{SOURCE_EXTENSIONS})")


@dataclass(frozen=True)
class Frame:
    """One stack-trace frame: the file, the line and the function it names (`Class.method`).

    `dependency`: the frame is inside another package (its `path` is then the path inside that
    package); `whole`: the path is exact from its root (a dependency's, or a Java package's) and
    must match in full."""

    path: str
    line: int | None
    function: str | None
    dependency: bool = field(default=False, compare=False)
    whole: bool = field(default=False, compare=False)
    # how far from the failure: the n-th frame of this repository's code in a trace written
    # innermost first (every language's but Python's, whose frames all stay at 0)
    depth: int = field(default=0, compare=False)
    # the path as the trace wrote it (normalized): not read again as a quoted path
    quoted: str = field(default="", compare=False)
    # which form it was read from (`KINDS`)
    kind: str = field(default="", compare=False)


@dataclass
class TraceEvidence:
    """The frames of a report, and the functions its traces name without a file (a C# frame
    of a release build, the callee of a PHP frame), as `Class.method`."""

    frames: list[Frame] = field(default_factory=list[Frame])
    named: list[str] = field(default_factory=list[str])


def normalize_path(path: str) -> str:
    """A quoted path as a repository path: forward slashes, no drive, no `./`."""
    path = path.replace("\\", "/")
    path = re.sub(r"^[A-Za-z]:", "", path)
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("~/")


# --- dependencies -------------------------------------------------------------------------

# the top-level packages of Go's standard library: `go/src/<one of these>/` is GOROOT, while
# `go/src/github.com/...` is a GOPATH checkout (anyone's own code)
_GO_STD = (
    "archive|bufio|builtin|bytes|cmp|compress|container|context|crypto|database|debug|embed"
    "|encoding|errors|expvar|flag|fmt|go|hash|html|image|index|internal|io|iter|log|maps|math"
    "|mime|net|os|path|plugin|reflect|regexp|runtime|slices|sort|strconv|strings|sync|syscall"
    "|testing|text|time|unicode|unique|unsafe|vendor"
)
# (pattern, what it is): group 1 is the path inside the package. Every pattern starts at a
# folder boundary with a literal, so a search tries one cheap test per character.
_DEPENDENCY_ROOTS = [
    re.compile(p)
    for p in (
        r"(?:^|/)(?:site|dist)-packages/(?:[^/]+\.egg/)?(.+)",  # Python packages (and eggs)
        r"(?:^|/)[Ll]ib/python\d(?:\.\d+)?t?/(.+)",  # Python's standard library
        r"(?:^|/)Python\d+/Lib/(.+)",  # ... on Windows
        r"(?:^|/)node_modules/(?:@[^/]+/)?[^/]+/(.+)",  # npm (the last node_modules wins: below)
        r"(?:^|/)pkg/mod/[^@]+@[^/]+/(.+)",  # the Go module cache
        rf"(?:^|/)(?:go|goroot|libexec)(?:-?[\d.]*)/src/((?:{_GO_STD})/.+)",  # GOROOT
        r"(?:^|/)\.cargo/registry/src/[^/]+/[^/]+/(.+)",  # crates.io
        r"(?:^|/)\.cargo/git/checkouts/[^/]+/[^/]+/(.+)",  # git dependencies of cargo
        r"^/?rustc/[0-9a-f]+/(.+)",  # Rust's standard library
        r"(?:^|/)gems/[A-Za-z][\w.-]*-\d[\w.]*/(.+)",  # a gem: gems/<name>-<version>/
        r"(?:^|/)lib/ruby/\d[\d.]*/(.+)",  # Ruby's standard library
        r"(?:^|/)vendor/(?:[^/]+/[^/]+/)?(.+\.php)",  # composer
        r"(?:^|/)vendor/(.+)",  # Go modules' and others' vendored copies
        r"^/?usr/(?:local/)?include/(.+)",  # C/C++ system headers
        r"^/?usr/lib/gcc/.+?/include/(.+)",
    )
]


def dependency_path(path: str) -> str | None:
    """The path inside its package when `path` (normalized) is a dependency's file, else None."""
    if "node_modules/" in path:  # nested packages: the innermost is the one
        path = path[path.rfind("node_modules/") :]
    for pattern in _DEPENDENCY_ROOTS:
        m = pattern.search(path)
        if m:
            return m.group(1)
    return None


def _line(digits: str) -> int | None:
    """A frame's line, or None for digits no file has as many lines as (`:99999999999999`;
    int() of more than 4,300 digits raises)."""
    return int(digits) if len(digits) <= 9 else None


def _frame(path: str, line: int | None, function: str | None, whole: bool = False) -> Frame:
    path = normalize_path(path)
    inside = dependency_path(path) if not whole else None
    if inside is not None:
        return Frame(inside, line, function, dependency=True, whole=True, quoted=path)
    return Frame(path, line, function, whole=whole, quoted=path)


# --- one line at a time -------------------------------------------------------------------

_PY_FRAME = re.compile(rf'File "(?P<path>{PATH})", line (?P<line>\d+)(?:, in (?P<func>[\w<>.]+))?')
_IPY8_FRAME = re.compile(rf"File (?P<path>{PATH}):(?P<line>\d+), in (?P<func>[\w<>.]+)")
_IPY_FRAME = re.compile(rf"(?P<path>{PATH}) in (?P<func>[A-Za-z_]\w*)\(")
# pytest's own traceback (`--tb=long`/`short`): `src/pkg/mod.py:120: in run`
_PYTEST_FRAME = re.compile(rf"(?P<path>{PATH}):(?P<line>\d+): in (?P<func>[A-Za-z_<][\w<>.]*)$")
_JAVA_FRAME = re.compile(
    r"at (?:[\w.-]+(?:@[\w.-]+)?/{1,2})?(?P<qual>[\w$.<>]+)"
    r"\((?P<file>[\w$-]+\.(?:java|kt|kts|scala|groovy)):(?P<line>\d+)\)"
)
_JAVA_MODULE = re.compile(r"at (?P<module>[\w.-]+(?:@[\w.-]+)?)/")
_JDK_PACKAGES = re.compile(r"(?:java|javax|jdk|sun|com\.sun|kotlin|kotlinx|scala)\.")
_DOTNET_FRAME = re.compile(
    r"at (?P<qual>[\w.<>`\[\],]+)\([^)]*\)(?: in (?P<path>.+):line (?P<line>\d+))?$"
)
_DOTNET_RUNTIME = ("System.", "Microsoft.", "Xunit.", "NUnit.")
_V8_FRAME = re.compile(r"at (?P<func>[^()]+?) \((?P<loc>[^()]+)\)$")
_V8_BARE = re.compile(r"at (?P<loc>\S+)$")
_BROWSER_FRAME = re.compile(r"(?P<func>[^@\s]*)@(?P<loc>\S+)$")
_LOCATION = re.compile(r"(?P<path>.+?)(?:\?[^:?]*)?:(?P<line>\d+)(?::\d+)?")
_URL_PREFIX = re.compile(
    r"^(?:webpack-internal:///|webpack:///|webpack://[\w@.-]+/|file://|[a-z]+://[^/]*)"
)
_GO_NAME = re.compile(r"[\w./*()\[\]-]+")
_GO_LOCATION = re.compile(r"(?P<path>\S+\.go):(?P<line>\d+)(?: \+0x[0-9a-f]+)?$")
_RUST_PANIC = re.compile(r"thread '[^']*' panicked at (?:'.*', )?(?P<path>\S+\.rs):(?P<line>\d+)")
_RUST_FUNCTION = re.compile(r"\d+:\s+(?:0x[0-9a-f]+ - )?(?P<func>\S.*)$")
_AT_LOCATION = re.compile(r"at (?P<path>\S+?):(?P<line>\d+)(?::\d+)?$")
_NUMBERED = re.compile(r"#\d+\s+(?:0x[0-9a-fA-F]+ in )?")
_VALGRIND = re.compile(
    r"(?:==\d+== +)?(?:at|by) 0x[0-9A-Fa-f]+: (?P<func>.+) \((?P<file>[^()]+):(?P<line>\d+)\)$"
)
_RUBY_FRAME = re.compile(
    r"(?:from )?(?P<path>\S+\.(?:rb|rake|erb)):(?P<line>\d+):in [`'](?P<func>[^'`]+)'"
)
# Visual Studio's call stack (`node.exe!ns::f(int x) Line 109`, the file on the next line as
# `at E:\\src\\f.c(109)`) and WinDbg's (`node!ns::f+0x25 [E:\\src\\f.c @ 109]`)
_WINDOWS_FUNCTION = re.compile(r"(?:\[Inline Frame\] )?[\w.-]+!(?P<func>[^(]+)\(.*\) Line \d+")
_AT_PAREN = re.compile(r"at (?P<path>\S+)\((?P<line>\d+)\)$")
_WINDBG = re.compile(
    r"(?:[0-9a-f`]+ +)*[\w.-]+!(?P<func>[^\s+\[]+)(?:\+0x[0-9a-f]+)?"
    r" +\[(?P<path>[^\]@]+?) @ (?P<line>\d+)\]"
)
_PHP_FRAME = re.compile(r"#\d+ (?P<path>\S+\.php)\((?P<line>\d+)\): (?P<callee>[^(\s]+)\(")
_PHP_IN = re.compile(r"\bin (?P<path>\S+\.php)(?: on line |:)(?P<line>\d+)")
_PAREN_DIAGNOSTIC = re.compile(rf"(?P<path>{PATH})\((?P<line>\d+)(?:,\d+)?\)")
_PATH_LINE = re.compile(rf"(?P<path>{PATH}):(?P<line>\d+)")


def _location(loc: str) -> tuple[str, int | None] | None:
    """(path, line) of a JS location: `webpack:///./src/y.ts?:3:7`, `http://h/app.js:1:2`."""
    loc = _URL_PREFIX.sub("", loc)
    m = _LOCATION.fullmatch(loc)
    if not m or not _SOURCE_PATH.fullmatch(m["path"]):
        return None
    return m["path"], _line(m["line"])


def _go_function(line: str) -> str | None:
    """The function of a goroutine dump's function line: `pkg.(*T).Method(0xc0, 0x1)`,
    `created by pkg.Func in goroutine 7`."""
    if line.startswith("created by "):
        name = line.removeprefix("created by ").split(" in goroutine ", 1)[0]
    elif line.endswith(")"):
        depth, opening = 0, 0
        for i in range(len(line) - 1, -1, -1):  # the opening of the arguments' parenthesis
            depth += {")": 1, "(": -1}.get(line[i], 0)
            if depth == 0:
                opening = i
                break
        name = line[:opening]
    else:
        return None
    return name if "." in name and _GO_NAME.fullmatch(name) else None


def _cpp_frame(rest: str) -> tuple[str | None, tuple[str, int | None] | None]:
    """gdb (`ns::C::m (this=0x1) at src/a.cc:12`) and sanitizers (`func /path/file.c:33:5`):
    the function and the location of what follows `#N 0x... in `."""
    head, sep, tail = rest.rpartition(" at ")
    if sep and (m := _LOCATION.fullmatch(tail.strip())) and _SOURCE_PATH.fullmatch(m["path"]):
        return colons_name(head.split(" (", 1)[0]), (m["path"], _line(m["line"]))
    head, _, last = rest.rstrip().rpartition(" ")
    m = _LOCATION.fullmatch(last)
    if head and m and _SOURCE_PATH.fullmatch(m["path"]):
        return colons_name(head), (m["path"], _line(m["line"]))
    return colons_name(rest.split(" (", 1)[0]) if not rest.startswith("0x") else None, None


class _Reader:
    """Frames of one report, read line by line; a function line (Go, Rust) waits for the
    location on the next line."""

    def __init__(self) -> None:
        self.found = TraceEvidence()
        self.pending: tuple[str, str | None] | None = None  # (language, function)
        self.used: set[int] = set()  # lines that gave a frame

    def add(self, frame: Frame, index: int, kind: str) -> None:
        if len(self.found.frames) < MAX_FRAMES:
            self.found.frames.append(replace(frame, kind=kind))
            self.used.add(index)

    def name(self, function: str | None) -> None:
        if function and function not in self.found.named and len(self.found.named) < MAX_FRAMES:
            self.found.named.append(function)

    def read(self, line: str, index: int) -> None:
        pending, self.pending = self.pending, None
        if '"' in line and "File " in line:
            for m in _PY_FRAME.finditer(line):
                self.add(_frame(m["path"], _line(m["line"]), m["func"]), index, "python")
            if index in self.used:
                return
        if line.startswith("File ") and (m := _IPY8_FRAME.match(line)):
            self.add(_frame(m["path"], _line(m["line"]), m["func"]), index, "python")
            return
        if ": in " in line and (m := _PYTEST_FRAME.match(line)):
            self.add(_frame(m["path"], _line(m["line"]), m["func"]), index, "python")
            return
        if line.startswith("at "):
            self._at(line, index, pending)
            return
        if line.startswith("#"):
            self._numbered(line, index)
            return
        if line.startswith("thread '"):
            if m := _RUST_PANIC.match(line):
                self.add(_frame(m["path"], _line(m["line"]), None), index, "rust")
            return
        if m := _GO_LOCATION.match(line):
            function = pending[1] if pending and pending[0] == "go" else None
            self.add(_frame(m["path"], _line(m["line"]), function), index, "go")
            return
        if ".rb:" in line and (m := _RUBY_FRAME.match(line)):
            self.add(_frame(m["path"], _line(m["line"]), ruby_name(m["func"])), index, "ruby")
            return
        if " 0x" in line and (m := _VALGRIND.match(line)):
            self.add(_frame(m["file"], _line(m["line"]), colons_name(m["func"])), index, "valgrind")
            return
        if "!" in line and (m := _WINDBG.match(line)):
            self.add(_frame(m["path"], _line(m["line"]), colons_name(m["func"])), index, "windows")
            return
        if "!" in line and " Line " in line and (m := _WINDOWS_FUNCTION.match(line)):
            self.pending = ("windows", colons_name(m["func"]))
            return
        if line[:1].isdigit() and (m := _RUST_FUNCTION.match(line)):
            self.pending = ("rust", colons_name(m["func"]))
            return
        browser = _BROWSER_FRAME.match(line) if "@" in line else None
        if browser and (where := _location(browser["loc"])):
            self.add(_frame(where[0], where[1], js_name(browser["func"])), index, "browser")
            return
        if ".php" in line and (m := _PHP_IN.search(line)):
            self.add(_frame(m["path"], _line(m["line"]), None), index, "php")
            return
        if " in " in line and (m := _IPY_FRAME.search(line)):
            self.add(_frame(m["path"], None, m["func"]), index, "python")
            return
        if "." in line and (function := _go_function(line)):
            self.pending = ("go", go_name(function))

    def _at(self, line: str, index: int, pending: tuple[str, str | None] | None) -> None:
        """`at ...`: Java/Kotlin, C#, V8, or a Rust backtrace's location line."""
        if m := _JAVA_FRAME.match(line):
            package, function = java_name(m["qual"])
            module = _JAVA_MODULE.match(line)
            jdk = bool(module and module["module"].startswith(("java.", "jdk."))) or bool(
                _JDK_PACKAGES.match(m["qual"])
            )
            path = "/".join([*package, m["file"]])
            frame = Frame(path, _line(m["line"]), function, jdk, whole=True, quoted=m["file"])
            self.add(frame, index, "java")
            return
        if " in " in line and ":line " in line and (m := _DOTNET_FRAME.match(line)):
            self.add(_frame(m["path"], _line(m["line"]), dotnet_name(m["qual"])), index, "dotnet")
            return
        if m := _V8_FRAME.match(line):
            if where := _location(m["loc"]):
                self.add(_frame(where[0], where[1], js_name(m["func"])), index, "node")
            return
        if (m := _AT_LOCATION.match(line)) and _SOURCE_PATH.fullmatch(
            _URL_PREFIX.sub("", m["path"])
        ):
            function = pending[1] if pending and pending[0] == "rust" else None
            if m["path"].endswith(".rs"):
                self.add(_frame(m["path"], _line(m["line"]), function), index, "rust")
            elif where := _location(line[3:]):
                self.add(_frame(where[0], where[1], None), index, "node")
            return
        if (m := _AT_PAREN.match(line)) and _SOURCE_PATH.fullmatch(m["path"]):
            function = pending[1] if pending and pending[0] == "windows" else None
            self.add(_frame(m["path"], _line(m["line"]), function), index, "windows")
            return
        if (m := _DOTNET_FRAME.match(line)) and not m["qual"].startswith(_DOTNET_RUNTIME):
            self.name(dotnet_name(m["qual"]))  # a release build's frame: a name, no file

    def _numbered(self, line: str, index: int) -> None:
        """`#N ...`: PHP, gdb, AddressSanitizer and the other sanitizers."""
        if m := _PHP_FRAME.match(line):
            self.add(_frame(m["path"], _line(m["line"]), None), index, "php")
            self.name(php_name(m["callee"]))
            return
        if m := _NUMBERED.match(line):
            function, where = _cpp_frame(line[m.end() :])
            if where:
                self.add(_frame(where[0], where[1], function), index, "native")
            else:
                self.name(function)


def read_traces(text: str) -> TraceEvidence:
    """The frames of every trace and diagnostic in `text`, in the order they appear."""
    reader = _Reader()
    lines = [line[:MAX_LINE].strip().lstrip("> ").strip() for line in text.splitlines()]
    for index, line in enumerate(lines):
        if len(reader.found.frames) >= MAX_FRAMES:
            break
        if line:
            reader.read(line, index)
    # compiler diagnostics and any other `path:line` / `path(line,col)` not read as a frame
    framed = {f.path for f in reader.found.frames}
    for index, line in enumerate(lines):
        if len(reader.found.frames) >= MAX_FRAMES:
            break
        if index in reader.used or not line:
            continue
        for pattern in (_PAREN_DIAGNOSTIC, _PATH_LINE):
            for m in pattern.finditer(line):
                frame = _frame(m["path"], _line(m["line"]), None)
                if frame.path not in framed:
                    framed.add(frame.path)
                    reader.add(frame, index, "diagnostic")
    return _with_depths(reader.found)


def _with_depths(found: TraceEvidence) -> TraceEvidence:
    """Each frame of code written innermost first gets its place among them: the first names
    where the failure happened, the next ones its callers."""
    depth = 0
    for i, frame in enumerate(found.frames):
        if frame.dependency or frame.path.endswith((".py", ".pyx", ".pyi")):
            continue
        found.frames[i] = replace(frame, depth=depth)
        depth += 1
    return found
