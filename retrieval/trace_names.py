"""Function names as stack traces write them, as the index's `Class.method`: C++ and Rust's
`ns::Class<T>::method`, Go's `pkg.(*T).Method.func1`, Java's `Bar$Inner.lambda$baz$0`, C#'s
`<Method>d__5.MoveNext`, V8's `Object.<anonymous>`, Ruby's `block in User#save`, PHP's
`Ns\\Foo->bar` (`retrieval/trace_frames.py` reads the frames)."""

from __future__ import annotations

import re

# what a trace calls a place that is no function of the code
_NOT_FUNCTIONS = frozenset(
    {"<module>", "<main>", "{main}", "main.main", "<anonymous>", "anonymous", "<top (required)>"}
)


_NAME_PART = re.compile(r"[A-Za-z_$][\w$]*")


def _strip_brackets(name: str, opening: str = "<", closing: str = ">") -> str:
    """`name` without its bracketed parts (`Vec<T>::push` -> `Vec::push`), in one pass."""
    out: list[str] = []
    depth = 0
    for ch in name:
        if ch == opening:
            depth += 1
        elif ch == closing and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


def short_name(parts: list[str]) -> str | None:
    """The last two parts of a qualified name as `Class.method` (or `module.function`: the
    index's qualified names tell which), skipping empty and numeric parts."""
    kept = [p for p in parts if p and not p.isdigit()][-2:]
    if not kept or not _NAME_PART.fullmatch(kept[-1]):
        return None
    if not _NAME_PART.fullmatch(kept[0]):  # `anonymous namespace'::Invoke: the method alone
        kept = kept[-1:]
    name = ".".join(kept)
    return None if name in _NOT_FUNCTIONS else name


def colons_name(name: str) -> str | None:
    """C++ and Rust: `ns::Class<T>::method(int) const`, `<a::Foo as Trait>::fmt::h0123...`."""
    name = name.strip().replace("`anonymous namespace'", "")  # MSVC's; gdb's is in parentheses
    if name.startswith("<") and " as " in name:  # <Type as Trait>::method
        inner, _, rest = name[1:].partition(" as ")
        rest = rest.split(">", 1)[1] if ">" in rest else ""
        name = inner + rest
    name = _strip_brackets(_strip_brackets(name), "(", ")")
    name = re.sub(r"::h[0-9a-f]{16}$", "", name.split(" ", 1)[0])
    parts = [p for p in name.split("::") if p not in ("{{closure}}", "{closure}", "")]
    return short_name(parts)


def go_name(name: str) -> str | None:
    """Go: `github.com/x/y/pkg.(*T).Method.func1` -> `T.Method`, `pkg.Func` -> `pkg.Func`."""
    name = _strip_brackets(name.rsplit("/", 1)[-1], "[", "]")
    parts = [p.strip("()*") for p in name.split(".")]
    while len(parts) > 1 and re.fullmatch(r"(?:func|gowrap|deferwrap)\d+", parts[-1]):
        parts.pop()  # a closure is its enclosing function's
    if len(parts) > 2:  # pkg.T.Method: the package adds nothing to the receiver's name
        parts = parts[1:]
    return short_name(parts)


def java_name(qualified: str) -> tuple[list[str], str | None]:
    """Java/Kotlin: (the package's folders, `Class.method`) of `com.foo.Bar$Inner.lambda$baz$0`."""
    parts = qualified.split(".")
    method = parts[-1]
    classes = parts[-2].split("$") if len(parts) > 1 else []
    package = parts[:-2]
    classes = [c for c in classes if c and not c.isdigit() and not c.startswith("lambda")]
    if method.startswith("lambda$"):  # lambda$baz$0: the lambda inside baz
        method = method.split("$")[1] if method.count("$") >= 2 else ""
    if method == "<init>":
        method = classes[-1] if classes else ""
    elif method.startswith("<") or "$" in method:
        method = method.split("$")[0].strip("<>")
    if classes and classes[-1].endswith("Kt"):  # a Kotlin file's top-level functions
        classes = classes[:-1]
    return package, short_name([*classes[-1:], method])


def dotnet_name(qualified: str) -> str | None:
    """C#: `Ns.Class.<Method>d__5.MoveNext`, `Ns.Class.Method[T]` -> `Class.Method`."""
    qualified = _strip_brackets(qualified, "[", "]")
    async_method = re.search(r"<(\w+)>[a-z]__", qualified)
    parts = qualified.split(".")
    if async_method:  # a compiler-made state machine or lambda inside Method
        owner = qualified[: async_method.start()].rstrip(".").split(".")
        owner = [p for p in owner if not p.startswith("<")]
        return short_name([*owner[-1:], async_method.group(1)])
    return short_name([p for p in parts if not p.startswith("<")])


def js_name(name: str) -> str | None:
    """Node/V8 and browsers: `Object.<anonymous>`, `async Foo.bar [as baz]`, `Foo/<`."""
    name = re.sub(r"\s*\[as [^\]]*\]$", "", name.strip())
    name = re.sub(r"^(?:async |new )+", "", name)
    name = name.replace("/<", "").strip("<@/")
    if "/" in name:  # Firefox: outer/inner
        name = name.rsplit("/", 1)[-1]
    parts = [p for p in name.split(".") if p and not p.startswith("<")]
    while parts and parts[0] in ("Object", "Module", "exports", "module", "process", "Array"):
        parts = parts[1:]
    return short_name(parts)


def ruby_name(name: str) -> str | None:
    """Ruby: `block (2 levels) in save`, `User#save`, `<class:User>` -> `save`, `User.save`."""
    name = re.sub(r"^(?:block (?:\(\d+ levels\) )?in |rescue in |ensure in )+", "", name)
    if name.startswith("<"):
        return None
    return short_name(re.split(r"[#.]|::", name))


def php_name(callee: str) -> str | None:
    """PHP: `App\\Foo->bar`, `Foo::bar`, `{closure}` -> `Foo.bar`."""
    if callee.startswith("{") or callee.startswith("["):
        return None
    callee = callee.rsplit("\\", 1)[-1]
    return short_name(re.split(r"->|::", callee))
