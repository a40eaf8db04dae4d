"""A doc comment's summary as a search question, CodeSearchNet-style: the first sentence of its
first paragraph, markup removed, and the filter that drops summaries no one would search with.

Pure text: the comment markers are already gone (see docs.py), the words are what is left.
"""

from __future__ import annotations

import re

MIN_WORDS = 3
MAX_WORDS = 40  # longer "first sentences" are run-on paragraphs (no full stop), not questions
# a first paragraph longer than this is documentation, not a question however detailed
MAX_DESCRIPTION_WORDS = 80

# a line that starts the details after the summary: tags, sections, examples, code fences
_SECTION = re.compile(
    r"^\s*(@\w|<(param|typeparam|returns|exception|remarks|example|value|seealso)\b"
    r"|:param|:return|:raises|:type|:rtype|\.\. |>>>|```|~~~|#\s|"
    r"(Args|Arguments|Parameters|Params|Returns|Return|Raises|Yields|Examples?|Notes?|See also|"
    r"Attributes|Usage|Warning|Panics|Errors|Safety|Throws|Exceptions?)\s*:?\s*$|-{3,}|={3,})",
    re.IGNORECASE,
)
# the end of the first sentence: a full stop (or ! ?) then a blank, before a capital or the end
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z(`\"'\[]|\s*$)")
_ABBREVIATIONS = ("e.g", "i.e", "etc", "vs", "approx", "resp", "cf")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_']*")

# Boilerplate summaries: nothing a person would type to find the function.
_BOILERPLATE = re.compile(
    r"^\s*("
    r"\{?@?inheritDoc\}?|<inheritdoc|inherit(ed)? ?doc|todo\b|fixme\b|xxx\b|hack\b|deprecated\b"
    r"|constructor\b|(the )?default constructor|creates? (a )?new instance|"
    r"initiali[sz]es? (a )?new instance|initiali[sz]es? (the|this|a) (new )?(instance|object)|"
    r"(the )?(class )?constructor (of|for)\b|private\b|internal use|for internal|"
    r"do not use|don't use|see\b|same as\b|alias (of|for)\b|implementation of\b|"
    r"implements?\b|overrides?\b|override of\b|"
    r"(returns?|gets?|sets?) the value\b|"
    r"auto-?generated|generated (by|code)|this (method|function) (is|was) (auto|generated)|"
    r"copyright\b|license|(c) \d{4}"
    r")",
    re.IGNORECASE,
)
# words that restate a getter's or setter's name without saying anything more
_FILLER_WORDS = (
    "a an the this that of to for from in on is are be by with its it value values get gets"
    " getter set sets setter return returns returned whether current given specified new"
    " property field object instance true false if or and"
)
_FILLER = frozenset(_FILLER_WORDS.split())


def first_sentence(doc: str) -> str:
    """The summary of a doc text: its first paragraph (`first_paragraph`) cut at the end of its
    first sentence."""
    text = first_paragraph(doc)
    for end in _SENTENCE_END.finditer(text):
        before = text[: end.start()].rsplit(" ", 1)[-1]
        if before.lower() in _ABBREVIATIONS or (len(before) == 1 and before.isupper()):
            continue  # "e.g. Foo", an initial
        text = text[: end.start() + 1]
        break
    return text


def first_paragraph(doc: str) -> str:
    """A doc text's first paragraph up to the first section, with markup turned into plain
    words and a leading signature dropped: the long form of a question, several sentences of
    what the function does (mined sets' `description`)."""
    summary = re.search(r"<summary>(.*?)</summary>", doc, re.DOTALL)  # XML doc comments
    if summary is not None:
        doc = summary.group(1)
    lines: list[str] = []
    for line in doc.splitlines():
        if _SECTION.match(line):
            break
        if not line.strip():
            if lines:
                break
            continue
        lines.append(line.strip())
    text = plain_words(" ".join(lines))
    # a signature line first (`intersection(*others) -> get a set ...`, Python's C-style docs)
    text = (
        re.sub(r"^[\w.]+\([^)]*\)\s*(->|-|:)?\s*", "", text)
        if re.match(r"^[\w.]+\(", text)
        else text
    )
    return re.sub(r"\s+", " ", text).strip()


def plain_words(text: str) -> str:
    """Markup of Javadoc, JSDoc, PHPDoc, XML doc comments, reStructuredText and Markdown
    removed; what it marked stays as words (`{@link Foo#bar}` is `Foo.bar`)."""
    text = re.sub(r"\{@(?:link|linkplain)\s+([^}\s]+)\s+([^}]+)\}", r"\2", text)
    text = re.sub(r"\{@\w+\s+([^}]*)\}", r"\1", text)  # {@link X}, {@code x}, {@see X}
    text = re.sub(r"\{@\w+\}", " ", text)
    text = re.sub(r"\{([\w.:#]+)\}", r"\1", text)  # YARD's {Foo#bar} links
    text = re.sub(r"<(?:see|seealso)\s+\w+=\"(?:\w:)?([^\"]+)\"\s*/?>(?:</see>)?", r"\1", text)
    text = re.sub(r"<(?:paramref|typeparamref)\s+name=\"([^\"]+)\"\s*/?>", r"\1", text)
    text = re.sub(r"</?[A-Za-z][A-Za-z0-9]*(\s[^<>]*)?/?>", " ", text)  # remaining tags
    text = re.sub(r"!?\[([^\]]+)\]\([^)]*\)", r"\1", text)  # [text](url)
    text = re.sub(r"\[`?([^\]`]+)`?\](?:\[[^\]]*\])?", r"\1", text)  # Rust [`Foo`], [Foo][bar]
    text = re.sub(r":\w+:`~?([^`<]+?)\s*<[^>`]+>`", r"\1", text)  # :class:`Arrow <a.Arrow>`
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text)  # :func:`name`, :class:`~a.B`
    text = re.sub(r"(?<!\w)\+(\w[\w.:#]*)\+(?!\w)", r"\1", text)  # RDoc's +Array+
    text = text.replace("``", "").replace("`", "")
    text = re.sub(r"(?<!\w)[*_]{1,2}([^*_\s][^*_]*?)[*_]{1,2}(?!\w)", r"\1", text)
    text = re.sub(r"#(\w)", r".\1", text)  # Foo#bar (Javadoc, YARD) is Foo.bar
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return re.sub(r"\s+", " ", text).strip()


def identifier_words(name: str) -> set[str]:
    """The lower-case words of an identifier (`getUserName`, `get_user_name`: get, user, name)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])", r"\1\3 \2\4", name)
    return {w.lower() for w in re.split(r"[\W_]+", spaced) if w}


def without_leading_name(summary: str, name: str) -> str:
    """The summary without the function's own name as its subject ("NewReader returns a
    reader" is "returns a reader"): Go's and many Ruby and Rust docs start so, and the question
    would name its answer. A name used as a verb stays ("Decode the data into v")."""
    head, _, rest = summary.partition(" ")
    verb = rest.split(" ", 1)[0]
    # the name may be qualified: `SecureRandom.base58`, `Foo::bar`, `Foo#bar`
    bare = re.split(r"\.|::|#", head.strip("`'\"(),.:"))[-1]
    if bare in (name, f"{name}()") and verb.endswith("s") and len(verb) > 2:
        return rest
    return summary


def shape(summary: str) -> str:
    """The summary with its code words masked ("is like IntSlice, but accepts..." and "is like
    BoolSlice, but accepts..." have one shape): generated families of functions share it."""
    words = []
    for word in summary.lower().split():
        plain = word.strip(".,;:()'\"")
        words.append(plain if plain.isalpha() else "_")
    original = summary.split()
    for i, word in enumerate(original):
        bare = word.strip(".,;:()'\"")
        if any(c.isupper() for c in bare[1:]) or "_" in bare or "." in bare:
            words[i] = "_"
    return " ".join(words)


def rejection(summary: str, name: str) -> str | None:
    """Why a summary is no question (None: it is one): too short or long, boilerplate, not
    prose, or restating the name."""
    words = _WORD.findall(summary)
    if len(words) < MIN_WORDS:
        return "fewer than 3 words"
    if len(words) > MAX_WORDS:
        return "more than 40 words"
    if _BOILERPLATE.match(summary):
        return "boilerplate"
    letters = sum(c.isascii() and c.isalpha() for c in summary)
    if letters < 0.5 * len(summary.replace(" ", "")):
        return "not prose"
    content = {w.lower() for w in words} - _FILLER
    if content <= identifier_words(name):
        return "restates the name"
    return None
