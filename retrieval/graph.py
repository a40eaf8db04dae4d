"""The call graph at query time: edges resolved to definitions inside the queried snapshot.

A call site is "certain" when the syntax pins it to a definition of the asked symbol (same-file
definition, an import from the defining module, `self.`/`cls.` inside the owning class, or the
class/module name as receiver); "ambiguous" when it only shares the name. Calls that resolve to
*another* definition of the same name are left out.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from functools import cache
from typing import Any, LiteralString

from core.database import Row
from core.sql_files import statement, statement_template
from core.terms import enclosing_name
from retrieval.hits import CallSite, SymbolMatch
from retrieval.principals import DbConnection
from retrieval.reading import clean_path
from retrieval.scope import VISIBLE_FILES, Scope, visible_files_among
from retrieval.symbols import exact_symbols, normalize_name

# call edges resolved per answer: each costs ~10 µs of SQL and ~8 µs of Python, and an agent
# reads a few dozen sites (30 per MCP page); a name called more often (the kernel's `kfree`:
# 11,190 calls) answers with the first ones in path order and says how many there are
# (`CallSites`). No name in the eight eval sets' corpora has more than 926 calls (PHP's
# `sprintf`): their answers are whole.
MAX_EDGES = 1000
# the edges of a name (or of callers) in path order, and how many (sql/graph/call_edges.sql)
_CALL_EDGES = statement_template("graph", "call_edges")
# one level of the callers' classes' bases (sql/graph/class_bases.sql)
_CLASS_BASES = statement_template("graph", "class_bases")
# the visible definitions of the callees' names (sql/graph/definitions_named.sql)
_DEFINITIONS_NAMED = statement_template("graph", "definitions_named").format(
    visible_files=VISIBLE_FILES
)
# languages where a method calls its own class's methods without a receiver
IMPLICIT_SELF_LANGUAGES = frozenset({"java", "csharp", "kotlin", "cpp", "ruby", "swift", "scala"})
# languages whose extension functions (`fun Job.cancelAndJoin()`) call their receiver's members
# without a receiver
EXTENSION_LANGUAGES = frozenset({"kotlin"})
# languages where `a.f()` / `$a->f()` reaches only methods and a free function's path is written
# `a::f()` / `a\\f()`
PATH_QUALIFIED_LANGUAGES = frozenset({"rust", "cpp", "php"})
# the receivers that name the enclosing class (PHP writes `$this->`, `self::`, `static::`), and
# the ones naming its base: `super.f()` in an override reaches the method it overrides, never
# the class's own
SELF_RECEIVERS = frozenset({"self", "cls", "this", "$this", "static"})
BASE_RECEIVERS = frozenset({"super", "super()"})
# the same words where only one language reads them so (a variable's name elsewhere: a tree's
# `parent.children()`): PHP's `parent::`, C#'s `base.`
LANGUAGE_BASE_RECEIVERS = {"php": frozenset({"parent"}), "csharp": frozenset({"base"})}
# languages whose module tables are local to their file (Lua's `local M = {}` in every module):
# there the table's name reaches its functions only in that file, other files through `require`
FILE_LOCAL_OWNER_LANGUAGES = frozenset({"lua"})
# the files a module path (`a.b`) names, per language (Python's by default)
_MODULE_FILES = {"lua": (".lua", "/init.lua")}


def _module_paths(importing_path: str, module: str, language: str = "python") -> list[str]:
    """Candidate file paths of a module as imported from `importing_path` (Python-style dotted
    paths; Lua's `require("a.b")` is `a/b.lua` or `a/b/init.lua`)."""
    dots = len(module) - len(module.lstrip("."))
    rest = module[dots:].replace(".", "/")
    if dots:
        base = posixpath.dirname(importing_path)
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        stem = posixpath.join(base, rest) if rest else base
    else:
        stem = rest
    suffixes = _MODULE_FILES.get(language, (".py", "/__init__.py"))
    return [stem + suffix for suffix in suffixes] if stem else []


# what a call without a receiver may reach outside a class: a function or a macro (C's
# `#define MAX(a, b)`, Rust's `macro_rules!`)
CALLABLE_KINDS = frozenset({"function", "macro"})
# and what declares one: a C/C++ prototype, which is never what a call resolves to (a file
# declaring `int parse(const char *);` calls the `parse` defined elsewhere)
FREE_FUNCTION_KINDS = CALLABLE_KINDS | {"prototype"}

# languages whose imports name a file by a path relative to the importing file (`./api`)
RELATIVE_IMPORT_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
_SCRIPT_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_COMPILED_EXTENSIONS = {
    ".js": (".ts", ".tsx"),
    ".jsx": (".tsx",),
    ".mjs": (".mts",),
    ".cjs": (".cts",),
}
# what a CommonJS module assigns its exports to (`exports.get = ...`, `module.exports = {...}`)
_COMMONJS_EXPORTS = frozenset({"", "exports", "module.exports"})


def _relative_module_paths(importing_path: str, module: str) -> list[str]:
    """Candidate files of a relative JavaScript/TypeScript import (`./api`, `../lib/x.js`): the
    path itself, with each script extension, or its directory's `index` file; TypeScript writes
    the compiled name (`./x.js` for `x.ts`). None for a package (`react`, `@/x`), which lies
    outside the repository or behind a bundler's alias."""
    if module not in (".", "..") and not module.startswith(("./", "../")):
        return []
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(importing_path), module))
    if joined == ".." or joined.startswith("../"):
        return []
    stem, ext = posixpath.splitext(joined)
    compiled = [stem + e for e in _COMPILED_EXTENSIONS.get(ext, ())]
    listed = [joined] if ext in _SCRIPT_EXTENSIONS else []
    return [
        *listed,
        *compiled,
        *(joined + e for e in _SCRIPT_EXTENSIONS),
        *(f"{joined}/index{e}" for e in _SCRIPT_EXTENSIONS),
    ]


def _defined_in(paths: list[str], definition_path: str, absolute: bool) -> bool:
    for candidate in paths:
        if candidate == definition_path or (absolute and definition_path.endswith("/" + candidate)):
            return True
    return False


def _implicit_self(edge: dict[str, Any]) -> bool:
    """A bare call inside a method, in a language where that reaches the method's class."""
    return (
        edge["caller_kind"] in ("method", "constructor", "property")
        and edge["language"] in IMPLICIT_SELF_LANGUAGES
    )


def _names_self(edge: dict[str, Any]) -> bool:
    """The call's receiver names the enclosing class or its base (`this.`, `super.`, `base.`)."""
    return edge["qualifier"] in SELF_RECEIVERS or _names_base(edge)


def _names_base(edge: dict[str, Any]) -> bool:
    """The call's receiver names the enclosing class's base (`super.`, `parent::`, `base.`)."""
    qualifier = edge["qualifier"]
    return qualifier in BASE_RECEIVERS or qualifier in LANGUAGE_BASE_RECEIVERS.get(
        edge["language"], ()
    )


def _in_extension(edge: dict[str, Any]) -> bool:
    """A call inside an extension function (`fun Job.cancelAndJoin()`, `fun <T> T.f()`), whose
    signature writes a receiver type and a `.` in front of the function's name."""
    if edge["language"] not in EXTENSION_LANGUAGES or not edge["caller"]:
        return False
    signature: str = edge["caller_signature"] or ""
    name: str = edge["caller"].rsplit(".", 1)[-1]
    head = signature.split(name + "(", 1)[0] if name + "(" in signature else ""
    return head.rstrip().endswith(".")


def _same_package(edge: dict[str, Any], definition: SymbolMatch) -> bool:
    """A Go function of the call's own package (Go qualifies names with the package)."""
    return (
        edge["language"] == "go"
        and definition.kind == "function"
        and posixpath.dirname(definition.path) == posixpath.dirname(edge["path"])
    )


def _last_segment(name: str) -> str:
    """`Base` of `Rack::Protection::Base`, `App\\Base` or `pkg.Base`."""
    return re.split(r"[.\\:]", name)[-1]


def _names_owner(qualifier: str, symbol: str) -> bool:
    """True when a call's receiver is the class or module that defines `symbol` (`Inline` in
    `Inline::dump()` for `Inline.dump`, `Utils` for `Rack::Utils.unescape`); a receiver that
    only ends the same way (`s` of `XThis.toString`) is not."""
    owner, qualifier = enclosing_name(symbol), qualifier.lstrip("\\:")
    boundary = r"(?:\.|::|\\)" + re.escape(qualifier) + "$"
    return bool(owner) and (owner == qualifier or re.search(boundary, owner) is not None)


class _Resolver:
    """Decides, per call site, which definition (if any) the call reaches."""

    def __init__(
        self,
        definitions: list[SymbolMatch],
        imports: dict[int, list[Row]],
        bases: dict[str, set[str]],
    ) -> None:
        self.definitions = definitions
        # per repository, once: a hot name has thousands of call sites and a few definitions
        self.by_repository: dict[str, list[SymbolMatch]] = defaultdict(list)
        for d in definitions:
            self.by_repository[d.repository].append(d)
        self.imports = imports
        self.bases = bases  # class qualified name -> names of its base classes (transitively)

    def resolve(self, edge: dict[str, Any]) -> SymbolMatch | None:
        """The definition the call certainly reaches, or None when it cannot be told."""
        qualifier = edge["qualifier"]
        same_repo = self.by_repository.get(edge["repository"], [])
        if qualifier is None:
            # a bare call in a method reaches its own class's method of that name, or the one
            # it inherits, where the language needs no receiver for it (Java, C#, Kotlin, C++,
            # Ruby): the class's names come before the file's functions
            if _implicit_self(edge):
                own = self._own_method(edge, same_repo) or self._inherited(edge, same_repo)
                if own is not None:
                    return own
            if _in_extension(edge):
                return None  # its receiver's member of that name, or the file's function
            # (a function or macro: a prototype only declares what is defined elsewhere)
            local = [d for d in same_repo if d.path == edge["path"] and d.kind in CALLABLE_KINDS]
            if local:
                return local[0]
            # Go: a bare call reaches the function of its own package (its file's directory);
            # two of them there (files for other platforms) leave it open
            package = [d for d in same_repo if _same_package(edge, d)]
            if len(package) == 1:
                return package[0]
            if package:
                return None
            return self._through_import(edge, edge["callee_name"], same_repo)
        if _names_self(edge) and edge["caller"]:
            # `self.x()` in a class, or in a subclass of the class defining `x`; `super.x()`
            # only in a base class
            if _names_base(edge):
                return self._inherited(edge, same_repo)
            return self._own_method(edge, same_repo) or self._inherited(edge, same_repo)
        for d in same_repo:
            if _names_owner(qualifier, d.symbol) and (
                edge["language"] not in FILE_LOCAL_OWNER_LANGUAGES or d.path == edge["path"]
            ):
                return d
        return self._through_import(edge, qualifier.split(".")[0], same_repo, as_module=True)

    def _inherited(self, edge: dict[str, Any], defs: list[SymbolMatch]) -> SymbolMatch | None:
        """The definition of the called name in a base class of the caller's class (bases are
        known by the names the `extends` clauses write, so a namespaced class matches by its
        last segment too)."""
        if not edge["caller"]:
            return None
        bases = self.bases.get(enclosing_name(edge["caller"]), set())
        short = {_last_segment(b) for b in bases}
        for d in defs:
            owner = enclosing_name(d.symbol)
            if owner and (owner in bases or _last_segment(owner) in short):
                return d
        return None

    @staticmethod
    def _own_method(edge: dict[str, Any], defs: list[SymbolMatch]) -> SymbolMatch | None:
        """The definition of the called name in the caller's own class, in its file (a bare
        call: only from a method, in a language that needs no receiver)."""
        if not edge["caller"] or (edge["qualifier"] is None and not _implicit_self(edge)):
            return None
        owner = enclosing_name(edge["caller"])
        for d in defs:
            if d.path == edge["path"] and owner and enclosing_name(d.symbol) == owner:
                return d
        return None

    def _through_import(
        self, edge: Row, name: str, defs: list[SymbolMatch], *, as_module: bool = False
    ) -> SymbolMatch | None:
        for imp in self.imports.get(edge["file_version_id"], []):
            if imp["callee_name"] != name:
                continue
            module = imp["qualifier"] or ""
            if edge["language"] in RELATIVE_IMPORT_LANGUAGES:
                found = self._from_relative_module(edge["path"], module, defs, as_module)
                if found is not None:
                    return found
                continue
            if as_module or not module:
                # `import pkg.mod` / `from pkg import mod`: the name itself is the module
                module = f"{module}.{name}" if module and module != "." else (module + name)
            paths = _module_paths(edge["path"], module, edge["language"])
            absolute = not module.startswith(".")
            for d in defs:
                if _defined_in(paths, d.path, absolute):
                    return d
        return None

    @staticmethod
    def _from_relative_module(
        importing_path: str, module: str, defs: list[SymbolMatch], as_module: bool
    ) -> SymbolMatch | None:
        """The definition an import of `module` (`import { f } from './api'`, `const { f } =
        require('./api')`) reaches: a top-level or CommonJS-exported one of the module's file;
        any of that file's definitions when the name is the module itself (`import * as api`,
        a default import, `const api = require('./api')`, called as `api.f()`)."""
        paths = _relative_module_paths(importing_path, module)
        for d in defs:
            if d.path in paths and (as_module or enclosing_name(d.symbol) in _COMMONJS_EXPORTS):
                return d
        return None


class CallSites(list[CallSite]):
    """Call sites in answer order, and `calls`: how many calls of the name the scope holds.
    `more` when those are more than one answer resolves: the sites are then those of
    `MAX_EDGES` calls, those in the asked definitions' own files first, then the first ones in
    path order."""

    calls: int = 0
    more: bool = False


def _edges(
    conn: DbConnection,
    scope: Scope,
    matched: LiteralString,
    params: Row,
    first_files: list[int] | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """The call edges matching `matched` (a condition on `e`, served by an index of
    `code_edges`) in the scope's visible files, those of `first_files` (file versions) first,
    then in path order: at most `MAX_EDGES`, and how many there are in all
    (sql/graph/call_edges.sql).

    Starts from the matched edges' own file versions (`visible_files_among`), never from every
    file of the scope (a hot name of a large repository: ~10k edges, but 20k+ visible files);
    only the first files' edges and their callers' symbols are read."""
    rows = conn.execute(
        _call_edges_statement(matched),
        {**scope.params(), **params, "first_files": first_files or [], "max_edges": MAX_EDGES},
    ).fetchall()
    return rows, rows[0]["calls"] if rows else 0


@cache
def _call_edges_statement(matched: LiteralString) -> LiteralString:
    """sql/graph/call_edges.sql for one condition (composed once: it is asked per answer)."""
    return _CALL_EDGES.format(
        matched=matched,
        visible_files=visible_files_among("SELECT file_version_id FROM per_version"),
    )


def _class_bases(
    conn: DbConnection, scope: Scope, edges: list[dict[str, Any]], levels: int = 4
) -> dict[str, set[str]]:
    """Base class names of the callers' classes, followed a few levels up: a caller's class by
    its qualified name, a base by the name its `extends` clause writes, which may lack the
    package or namespace the base's own qualified name has (`ByteBasedParser` for
    `jawn.ByteBasedParser`, `Base` for `App\\Base`): matched by its last segment."""
    owners = {enclosing_name(c) for c in {e["caller"] for e in edges} if c} - {""}
    bases: dict[str, set[str]] = {owner: set() for owner in owners}
    # the classes to expand next -> the owners they serve: the callers' own by qualified name, then
    # bases by the last segment of the name written
    qualified = {owner: {owner} for owner in owners}
    written: dict[str, set[str]] = {}
    for _ in range(levels):
        if not qualified and not written:
            break
        rows = conn.execute(
            _CLASS_BASES.format(
                visible_files=visible_files_among("SELECT DISTINCT file_version_id FROM classes")
            ),
            {
                **scope.params(),
                "classes": sorted(qualified),
                "lower_classes": sorted({c.lower() for c in qualified}),
                "names": sorted(written),
                "lower_names": sorted({n.lower() for n in written}),
            },
        ).fetchall()
        next_written: dict[str, set[str]] = {}
        for row in rows:
            for owner in qualified.get(row["klass"], set()) | written.get(row["name"], set()):
                if row["base"] not in bases[owner]:
                    bases[owner].add(row["base"])
                    next_written.setdefault(_last_segment(row["base"]), set()).add(owner)
        qualified, written = {}, next_written
    return bases


def _site(edge: Row, resolved: SymbolMatch | None, certainty: str) -> CallSite:
    callee = edge["callee_name"]
    return CallSite(
        repository=edge["repository"],
        path=edge["path"],
        line=edge["line"],
        caller=edge["caller"],
        caller_kind=edge["caller_kind"],
        callee=f"{edge['qualifier']}.{callee}" if edge["qualifier"] else callee,
        resolved_to=f"{resolved.path}:{resolved.start_line}" if resolved else None,
        certainty=certainty,
        commit=edge["commit_sha"],
        source=edge["source"],
    )


def find_callers(
    conn: DbConnection, scope: Scope, name: str, *, path: str | None = None
) -> tuple[list[SymbolMatch], CallSites]:
    """(definitions asked about, call sites): certain ones first, then ambiguous ones; of the
    first `MAX_EDGES` call edges of the name, those in the asked definitions' files first, then
    in path order (`CallSites.more` says there were more)."""
    name = normalize_name(name)
    bare = name.rsplit(".", 1)[-1]
    asked = exact_symbols(conn, scope, name, limit=200)
    # every definition of the name, so that a call reaching another one is left out
    everything = exact_symbols(conn, scope, bare, limit=200) if bare != name else list(asked)
    if path is not None:
        wanted = clean_path(path)
        asked = [d for d in asked if d.path == wanted]
    definitions = {d.symbol_id: d for d in asked + everything}
    # the definitions' own files first: a call there reaches the definition beside it (a C
    # file's, a module's own), and a name with more calls than one answer resolves (the
    # kernel's kfree) would otherwise lose those certain sites when the files come late in
    # path order (mm/slab.c)
    edges, calls = _edges(
        conn,
        scope,
        "e.kind = 'call' AND e.callee_name = %(bare)s",
        {"bare": bare},
        sorted({d.file_version_id for d in asked}),
    )
    imports = _imports(conn, edges)
    resolver = _Resolver(list(definitions.values()), imports, _class_bases(conn, scope, edges))
    asked_ids = {d.symbol_id for d in asked}
    qualified_ask = "." in name
    certain: list[CallSite] = []
    unresolved: list[dict[str, Any]] = []
    for edge in edges:
        target = resolver.resolve(edge)
        if target is not None and target.symbol_id in asked_ids:
            certain.append(_site(edge, target, "certain"))
        elif target is None and not (qualified_ask and _names_self(edge)):
            if _names_base(edge) and edge["caller"]:
                continue  # its class's bases hold no definition of the name: it calls outside
            unresolved.append(edge)
    unresolved = _function_calls(conn, asked, _reachable(asked, unresolved))
    if len(definitions) > len(asked_ids):  # the name has other definitions: calls may be theirs
        unresolved = _receivers_in_sight(conn, asked, unresolved)
    sites = CallSites(certain + [_site(edge, None, "ambiguous") for edge in unresolved])
    sites.calls, sites.more = calls, calls > len(edges)
    return asked, sites


def _imports(conn: DbConnection, edges: list[dict[str, Any]]) -> dict[int, list[Row]]:
    """The imports of the edges' files that a call could resolve through: those importing the
    called name, or a call's receiver (`_Resolver._through_import` looks at no other; a C file's
    dozens of `#include`s are never read)."""
    imports: dict[int, list[Row]] = defaultdict(list)
    if not edges:
        return imports
    names = {e["callee_name"] for e in edges} | {
        e["qualifier"].split(".")[0] for e in edges if e["qualifier"]
    }
    # the names' imports first, then the edges' files among them (sql/graph/imports_named.sql)
    for row in conn.execute(
        statement("graph", "imports_named"),
        {"names": sorted(names), "files": sorted({e["file_version_id"] for e in edges})},
    ).fetchall():
        imports[row["file_version_id"]].append(row)
    return imports


def _reachable(asked: list[SymbolMatch], edges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Without the calls the language's visibility rules keep from every asked definition: Go's
    lower-case names belong to their package (the definition's directory), and an unexported
    function is called there without a qualifier (`n.walk()` is a method's call, and no other
    package can write `chi.walk()`). (Decided once for the asked definitions, not per call: a
    hot name has thousands.)"""
    if not asked or not all(d.path.endswith(".go") and d.name[:1].islower() for d in asked):
        return edges
    packages = {(d.repository, posixpath.dirname(d.path)) for d in asked}
    any_method = any(d.kind not in FREE_FUNCTION_KINDS for d in asked)
    return [
        e
        for e in edges
        if (e["repository"], posixpath.dirname(e["path"])) in packages
        and (e["qualifier"] is None or any_method)
    ]


def _function_calls(
    conn: DbConnection, asked: list[SymbolMatch], edges: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Without the calls written with method syntax (`help.display_width()`, `$f->stop()`) when
    only free functions were asked for, in languages where that syntax reaches methods alone and
    a function's path is written with `::` or `\\` (Rust, C++, PHP). The edge keeps the receiver
    without its separator, so the call's own text tells."""
    if not asked or any(d.kind not in FREE_FUNCTION_KINDS for d in asked):
        return edges
    dotted = [e for e in edges if e["qualifier"] and e["language"] in PATH_QUALIFIED_LANGUAGES]
    if not dotted:
        return edges
    texts: dict[int, list[str]] = defaultdict(list)
    for row in conn.execute(
        statement("graph", "texts_naming"),
        {"files": sorted({e["file_version_id"] for e in dotted}), "name": asked[0].name},
    ).fetchall():
        texts[row["file_version_id"]].append(row["content"])

    def method_syntax(edge: dict[str, Any]) -> bool:
        receiver, name = re.escape(edge["qualifier"]), re.escape(edge["callee_name"])
        as_method = re.compile(receiver + r"\s*(?:\?\.|\.|->|\?->)\s*" + name + r"\b")
        as_path = re.compile(receiver + r"\s*(?:::|\\)\s*" + name + r"\b")
        chunks = texts.get(edge["file_version_id"], [])
        return any(as_method.search(t) for t in chunks) and not any(
            as_path.search(t) for t in chunks
        )

    methods = {id(e) for e in dotted if method_syntax(e)}
    return [e for e in edges if id(e) not in methods]


def _owner(definition: SymbolMatch) -> str | None:
    """The short name of the class a method belongs to (None for a function)."""
    owner = enclosing_name(definition.symbol)
    return (_last_segment(owner) or None) if owner else None


def _receivers_in_sight(
    conn: DbConnection, asked: list[SymbolMatch], edges: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Of the calls that only share a method's name through some object (`x.stop()`), those
    in files that name the method's class at all: code that calls a method of one of several
    classes with that name nearly always names it (an import, a type, a constructor). Calls
    without a receiver, and every call when a function (not a method) was asked for, are kept."""
    owners = {_owner(d) for d in asked}
    if not edges or not owners or None in owners:
        return edges
    names = sorted(o for o in owners if o)
    through_object = [e for e in edges if e["qualifier"] and not _names_self(e)]
    if not through_object:
        return edges
    pattern = r"\m(" + "|".join(re.escape(o) for o in names) + r")\M"
    naming = {
        row["file_version_id"]
        for row in conn.execute(
            statement("graph", "files_matching"),
            {"files": sorted({e["file_version_id"] for e in through_object}), "pattern": pattern},
        ).fetchall()
    }
    return [
        e for e in edges if not e["qualifier"] or _names_self(e) or e["file_version_id"] in naming
    ]


def find_callees(
    conn: DbConnection, scope: Scope, name: str, *, path: str | None = None
) -> tuple[list[SymbolMatch], list[CallSite]]:
    """(definitions asked about, what they call), each callee resolved where it can be."""
    asked = exact_symbols(conn, scope, name, limit=20)
    if path is not None:
        wanted = clean_path(path)
        asked = [d for d in asked if d.path == wanted]
    if not asked:
        return [], []
    edges, _calls = _edges(
        conn,
        scope,
        "e.kind = 'call' AND e.caller_symbol_id = ANY(%(ids)s)",
        {"ids": [d.symbol_id for d in asked]},
    )
    sites = [_site(edge, None, "ambiguous") for edge in edges]
    names = sorted({e["callee_name"] for e in edges})
    if names:
        targets = conn.execute(_DEFINITIONS_NAMED, {**scope.params(), "names": names}).fetchall()
        by_name: dict[str, list[Row]] = defaultdict(list)
        for t in targets:
            by_name[t["name"]].append(t)
        for site, edge in zip(sites, edges, strict=True):
            found = by_name.get(edge["callee_name"], [])
            if len(found) == 1:
                site.resolved_to = f"{found[0]['path']}:{found[0]['start_line']}"
                site.certainty = "certain" if edge["qualifier"] is None else "ambiguous"
    return asked, sites
