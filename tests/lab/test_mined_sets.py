"""Mining questions from docs (lab/mined/): real tree-sitter parses of small files in
several languages, the summary cleaning and filters, and the stripped corpus whose gold ranges
still point at the functions."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from lab.excluded import excluded_repos
from lab.fixes import manifest
from lab.mined import build
from lab.mined.docs import documented_functions
from lab.mined.mining import drop_duplicates, questions, sample, take_sources
from lab.mined.packages import LANGUAGES, Package, refused
from lab.mined.sets import select
from lab.mined.summary import first_sentence, rejection, without_leading_name

GO = """package frame

// Parse reads the header of a frame and returns its payload length.
// It fails on short input.
func Parse(b []byte) (int, error) {
	if len(b) < 4 {
		return 0, errShort
	}
	return int(b[0]), nil
}

// Len returns the length.
func (f *Frame) Len() int { return f.n }
"""

PYTHON = '''class Cache:
    def __init__(self, size):
        """Constructor."""
        self.size = size
        self.items = {}
        self.hits = 0

    def evict(self, key):
        """Remove the least recently used entry when the cache is full.

        Args:
            key: the entry just added
        """
        if len(self.items) > self.size:
            oldest = min(self.items, key=self.items.get)
            del self.items[oldest]
        return key
'''

RUST = """impl Buffer {
    /// Splits the [`Buffer`] in two at the given `index`.
    ///
    /// # Panics
    /// When `index` is out of bounds.
    #[inline]
    pub fn split_at(&self, index: usize) -> (Buffer, Buffer) {
        let head = self.slice(0, index);
        let tail = self.slice(index, self.len());
        (head, tail)
    }
}
"""

JAVA = """package org.example;

public class Ledger {
    /**
     * {@inheritDoc}
     */
    public String toString() {
        StringBuilder b = new StringBuilder();
        b.append(total);
        return b.toString();
    }

    /**
     * Adds up the {@code amount} of every posted {@link Entry} for the account.
     *
     * @param account the account
     * @return the sum
     */
    public long balance(String account) {
        long sum = 0;
        for (Entry e : entries) sum += e.amount;
        return sum;
    }
}
"""

CSHARP = """namespace Shop {
    public class Basket {
        /// <summary>
        /// Applies the <see cref="T:Shop.Discount"/> to every line of <paramref name="order"/>.
        /// </summary>
        public void Apply(Order order) {
            foreach (var line in order.Lines) {
                line.Price -= discount;
            }
        }
    }
}
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def test_the_summary_is_the_cleaned_first_sentence_of_each_languages_docs():
    summaries = {}
    for path, text in [
        ("frame.go", GO),
        ("cache.py", PYTHON),
        ("buffer.rs", RUST),
        ("Ledger.java", JAVA),
        ("Basket.cs", CSHARP),
    ]:
        for f in documented_functions(path, text.encode()):
            summaries[f.qualified_name] = without_leading_name(first_sentence(f.doc), f.name)
    assert summaries == {
        "frame.Parse": "reads the header of a frame and returns its payload length.",
        "frame.Frame.Len": "returns the length.",
        "Cache.evict": "Remove the least recently used entry when the cache is full.",
        "Buffer::split_at": "Splits the Buffer in two at the given index.",
        "org.example.Ledger.toString": "",
        "org.example.Ledger.balance": "Adds up the amount of every posted Entry for the account.",
        "Shop.Basket.Apply": "Applies the Shop.Discount to every line of order.",
    }  # the constructor's docstring is not mined: it describes the object, not a behaviour


def test_boilerplate_and_name_restating_summaries_are_rejected():
    assert rejection("Constructor.", "__init__") == "fewer than 3 words"
    assert rejection("Initializes a new instance of the Basket class.", "Basket") == "boilerplate"
    assert rejection("{@inheritDoc}", "toString") == "fewer than 3 words"
    assert rejection("TODO: handle the empty case here", "f") == "boilerplate"
    assert rejection("Gets the user name.", "getUserName") == "restates the name"
    assert rejection("Returns true if the list is empty.", "isEmpty") is None
    assert first_sentence("Removes blank elements from the +Array+ in place.") == (
        "Removes blank elements from the Array in place."
    )
    assert first_sentence("Builds an :class:`Arrow <arrow.arrow.Arrow>` at e.g. noon. More.") == (
        "Builds an Arrow at e.g. noon."
    )
    # a name used as a verb stays: only a subject followed by its verb is dropped
    assert without_leading_name("Decode the TOML data into v.", "Decode") == (
        "Decode the TOML data into v."
    )


def test_the_corpus_keeps_line_numbers_and_the_gold_points_at_the_undocumented_function(
    tmp_path: Path,
):
    source, corpus = tmp_path / "src", tmp_path / "corpus"
    _write(
        source,
        {
            "frame/frame.go": GO,
            "frame/frame_test.go": GO.replace("package frame", "package frame_test"),
            "cache/cache.py": PYTHON,
            "tests/test_cache.py": PYTHON,
            "ledger/Ledger.java": JAVA,
        },
    )
    stats, candidates = take_sources(source, "pkg", (".go", ".py", ".java"), corpus, package="pkg")
    copied = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*") if p.is_file())
    assert copied == ["pkg/cache/cache.py", "pkg/frame/frame.go", "pkg/ledger/Ledger.java"]
    assert stats.files == 3
    reasons = {c.function.qualified_name: c.reason for c in candidates}
    assert reasons == {
        "frame.Parse": None,
        "frame.Frame.Len": "fewer than 3 lines of code",
        "Cache.evict": None,
        "org.example.Ledger.toString": "fewer than 3 words",
        "org.example.Ledger.balance": None,
    }

    drop_duplicates(candidates, "seed")
    found, lost = questions("mix", "test", sample(candidates, 10, "seed"), corpus)
    assert lost == 0
    by_symbol = {q["gold"][0]["symbol"]: q for q in found}
    assert set(by_symbol) == {"frame.Parse", "Cache.evict", "org.example.Ledger.balance"}
    # the long form: the whole first paragraph, only when it says more than the summary
    described = [c for c in candidates if c.description]
    long, _ = questions("mix", "test", sample(described, 10, "seed"), corpus, form="description")
    assert [(q["gold"][0]["symbol"], q["query"], q["type"]) for q in long] == [
        (
            "frame.Parse",
            "reads the header of a frame and returns its payload length. It fails on short input.",
            "description",
        )
    ]
    assert long[0]["gold"] == by_symbol["frame.Parse"]["gold"] and "long" in long[0]["id"]

    for path, original in [
        ("pkg/frame/frame.go", GO),
        ("pkg/cache/cache.py", PYTHON),
        ("pkg/ledger/Ledger.java", JAVA),
    ]:
        stripped = (corpus / path).read_text()
        assert stripped.count("\n") == original.count("\n")  # lines emptied, none removed
        for q in found:
            if q["gold"][0]["path"] == path:
                assert q["query"].rstrip(".") not in stripped
    go_lines = (corpus / "pkg/frame/frame.go").read_text().splitlines()
    parse = by_symbol["frame.Parse"]["gold"][0]
    assert go_lines[parse["start_line"] - 1].startswith("func Parse(")
    assert go_lines[parse["end_line"] - 1] == "}"
    assert go_lines[2:4] == ["", ""]  # the doc comment, emptied
    assert go_lines[11] == ""  # every function's docs go, not only the questions' own
    py_lines = (corpus / "pkg/cache/cache.py").read_text().splitlines()
    evict = by_symbol["Cache.evict"]["gold"][0]
    assert py_lines[evict["start_line"] - 1] == "    def evict(self, key):"
    assert '"""' not in "\n".join(py_lines[evict["start_line"] - 1 : evict["end_line"]])
    assert '"""Constructor."""' in py_lines[2]  # a docstring that is not a function's question
    java = (corpus / "pkg/ledger/Ledger.java").read_text()
    assert "Adds up" not in java and "@param account" not in java
    assert json.loads(json.dumps(found)) == found


def test_mined_sets_are_chosen_by_name_only_and_their_splits_share_no_package():
    assert not any(s.mined for s in select(None) + select("all"))
    assert [s.name for s in select("mined-test")] == [f"mined-{k}-test" for k in LANGUAGES]
    assert [s.name for s in select("go,mined-go")] == ["go", "mined-go-train", "mined-go-test"]
    for language in LANGUAGES.values():
        train = {(p.spec, p.roots) for p in language.train}
        test = {(p.spec, p.roots) for p in language.test}
        assert train and test and not train & test, language.key
        assert not {p.folder for p in language.train} & {p.folder for p in language.test}


def test_a_declaration_without_code_is_no_answer():
    trait = b"""trait Store {
    /// Reads the value stored under the key.
    fn get(&self, key: &str) -> Option<u8>;
    /// Reads the value or the given default.
    fn get_or(&self, key: &str, default: u8) -> u8 {
        let found = self.get(key);
        found.unwrap_or(default)
    }
}
"""
    bodies = {f.name: f.has_body for f in documented_functions("store.rs", trait)}
    assert bodies == {"get": False, "get_or": True}
    options = b"""interface Options {
  /** Merges the incoming value into the cached one. */
  merge?(cached: { items: number[] }, incoming: number[]): void
}
/** Runs the task and resolves with its result. */
export const runTask = async (task: () => Promise<number>) => {
  const result = await task()
  return result
}
"""
    bodies = {f.name: f.has_body for f in documented_functions("options.ts", options)}
    assert bodies == {"merge": False, "runTask": True}


def test_no_set_is_mined_from_a_repository_never_to_train_or_tune_on(tmp_path: Path, monkeypatch):
    listed = tmp_path / "exclude_repos.txt"
    listed.write_text("Axios/axios\nrails/rails\n")
    excluded = excluded_repos((tmp_path / "absent.txt", listed))
    assert excluded == {"axios/axios", "rails/rails"}
    axios = Package("axios", "npm", "axios@1.7.7", ("package/lib",), upstream="axios/AXIOS")
    unknown = Package("x", "npm", "x@1.0.0", ("package",))
    assert refused((axios, unknown), excluded) == [
        "axios@1.7.7: its upstream axios/AXIOS is listed in exclude_repos.txt",
        "x@1.0.0: no upstream repository recorded in lab.mined.packages",
    ]
    # every package records its project's repository, none of them listed on this machine (the
    # list is `shared/eval/exclude_repos.txt`; without it only the records are checked); nor is
    # any repository whose fixes are mined
    every = tuple(p for language in LANGUAGES.values() for p in language.train + language.test)
    assert all(p.upstream.count("/") == 1 for p in every)
    on_this_machine = excluded_repos()
    assert refused(every, on_this_machine) == []
    assert not {e.repo.lower() for e in manifest.load()} & on_this_machine
    # a build refuses such a set before it fetches or writes anything
    monkeypatch.setattr(build, "excluded_repos", lambda: excluded)
    monkeypatch.setattr(build, "AREA", tmp_path / "mined")
    monkeypatch.setitem(
        build.LANGUAGES, "javascript", replace(LANGUAGES["javascript"], test=(axios,))
    )
    with pytest.raises(RuntimeError, match="choose another package"):
        build.build_set("javascript", "test")
    assert not (tmp_path / "mined" / "javascript-test").exists()
