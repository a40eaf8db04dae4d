"""Mining (query, changed functions) pairs from real git histories built here: which commits
become pairs, their positives at the parent as codeatlas parses them, their negatives, the
split by repository and the manifest's round trip."""

from __future__ import annotations

import json
from pathlib import Path

from indexing.parsing.parser import parse_file
from lab.fixes import manifest
from lab.fixes.__main__ import main
from lab.fixes.build import build
from lab.fixes.manifest import RepoEntry
from lab.fixes.mining import mine_repository
from tests.conftest import GitRepo

PARSER = '''"""Header and body parsing."""


def parse_header(line):
    """Split one header line into its name and value."""
    name, _, value = line.partition(":")
    return name.strip(), value.strip()


def parse_body(text):
    """The body's lines."""
    lines = text.splitlines()
    return lines


def format_value(value):
    """A header value for output."""
    return str(value)
'''

OTHER = """def compute_total(items):
    return sum(item.price for item in items)


def render_invoice(items):
    return "total: %s" % compute_total(items)
"""


def _python_repo(root: Path) -> tuple[GitRepo, dict[str, str]]:
    """A Python project whose history holds one commit of each kind the miner must judge."""
    repo = GitRepo(root)
    shas: dict[str, str] = {}
    repo.write("src/shop/parser.py", PARSER)
    repo.write("src/shop/invoice.py", OTHER)
    for name in ("a", "b", "c", "d"):
        repo.write(f"src/shop/{name}.py", f"def {name}_value():\n    return 1\n")
    repo.write("tests/test_parser.py", "def test_header():\n    assert True\n")
    repo.write("VERSION", "1.0.0\n")
    shas["root"] = repo.commit("Initial import of the shop package with parsers and invoices")

    repo.write(
        "src/shop/parser.py",
        PARSER.replace(
            'name, _, value = line.partition(":")',
            'if ":" not in line:\n        return line.strip(), ""\n'
            '    name, _, value = line.partition(":")',
        ),
    )
    repo.write(
        "tests/test_parser.py",
        "def test_header():\n    assert True\n\n\ndef test_x():\n    assert True\n",
    )
    shas["fix"] = repo.commit(
        "Fix crash in parse_header when a header line has no colon (#12)\n\n"
        "A header without a colon raised ValueError.\n\n"
        "Signed-off-by: Dev <dev@example.com>"
    )

    repo.write("tests/test_parser.py", "def test_header():\n    assert 1\n")
    shas["test_only"] = repo.commit("Fix flaky header test that fails on slow machines (#13)")

    repo.write("VERSION", "1.1.0\n")
    repo.write("src/shop/a.py", "def a_value():\n    return 2\n")
    shas["version"] = repo.commit("Release 1.1.0")

    repo.write("src/shop/parser.py", PARSER)
    shas["revert"] = repo.commit(
        'Revert "Fix crash in parse_header when a header line has no colon (#12)"\n\n'
        f"This reverts commit {shas['fix']}."
    )

    for name in ("a", "b", "c", "d"):
        repo.write(f"src/shop/{name}.py", f"def {name}_value():\n    return 3\n")
    shas["many_files"] = repo.commit(
        "Fix wrong value returned by all four value helpers of the shop (#14)"
    )

    # a pure insertion inside parse_body, through a merged pull request
    repo.git("checkout", "-q", "-b", "fix-body")
    repo.write(
        "src/shop/parser.py",
        PARSER.replace(
            "    lines = text.splitlines()\n",
            "    lines = text.splitlines()\n    lines = [line.rstrip() for line in lines]\n",
        ),
    )
    repo.commit("strip lines")
    repo.git("checkout", "-q", "main")
    repo.git(
        "merge",
        "--no-ff",
        "-q",
        "fix-body",
        "-m",
        "Merge pull request #20 from dev/fix-body\n\n"
        "Fix parse_body keeping trailing whitespace on every body line",
    )
    shas["merge"] = repo.git("rev-parse", "HEAD")

    # two files; the message shares no word with the code it changes
    repo.write("src/shop/invoice.py", OTHER.replace("sum(item.price", "sum(item.cost"))
    repo.write("src/shop/a.py", "def a_value():\n    return 4\n")
    shas["vague"] = repo.commit(
        "Fix the crash reported by several users last week on production servers (#40)"
    )
    return repo, shas


def _git_dir(repo: GitRepo) -> Path:
    return repo.path / ".git"


def test_only_fix_commits_become_pairs_newest_first(tmp_path: Path) -> None:
    repo, shas = _python_repo(tmp_path / "shop")
    result = mine_repository(_git_dir(repo), "acme/shop", "python", shas["vague"], "test")

    assert [p["commit"] for p in result.pairs] == [shas["vague"], shas["merge"], shas["fix"]]
    assert result.scanned == 8  # every first-parent commit, not the merged branch's own one
    assert dict(result.dropped) == {
        "root_commit": 1,
        "no_source_file": 1,
        "version_bump": 1,
        "revert": 1,
        "too_many_source_files": 1,
    }


def test_a_pair_holds_the_cleaned_query_and_the_changed_function_at_the_parent(
    tmp_path: Path,
) -> None:
    repo, shas = _python_repo(tmp_path / "shop")
    pairs = {
        p["commit"]: p
        for p in mine_repository(_git_dir(repo), "acme/shop", "python", shas["vague"], "test").pairs
    }
    fix = pairs[shas["fix"]]
    assert fix["id"] == f"acme/shop@{shas['fix'][:12]}"
    assert fix["parent"] == shas["root"]
    assert fix["query"] == (
        "Fix crash in parse_header when a header line has no colon\n\n"
        "A header without a colon raised ValueError."
    )
    assert fix["files"] == ["src/shop/parser.py"]
    assert fix["touches_tests"] is True
    assert fix["split"] == "test" and fix["language"] == "python"
    # the positive is the function exactly as codeatlas parses the parent's file
    parsed = parse_file("src/shop/parser.py", PARSER.encode())
    header = next(s for s in parsed.symbols if s.qualified_name == "parse_header")
    assert fix["positives"] == [
        {
            "path": "src/shop/parser.py",
            "symbol": "parse_header",
            "kind": "function",
            "start_line": header.start_line,
            "end_line": header.end_line,
        }
    ]
    # untouched functions of the changed file, then BM25 functions of the files beside it
    same_file = [n["symbol"] for n in fix["negatives"] if n["why"] == "same_file"]
    assert sorted(same_file) == ["format_value", "parse_body"]
    others = [n for n in fix["negatives"] if n["why"] == "bm25"]
    assert others and all(n["path"] != "src/shop/parser.py" for n in others)
    assert fix["consistency"] is True


def test_a_merged_pull_request_is_read_through_its_first_parent(tmp_path: Path) -> None:
    repo, shas = _python_repo(tmp_path / "shop")
    pairs = {
        p["commit"]: p
        for p in mine_repository(_git_dir(repo), "acme/shop", "python", shas["vague"], "test").pairs
    }
    merge = pairs[shas["merge"]]
    assert merge["query"] == "Fix parse_body keeping trailing whitespace on every body line"
    assert merge["parent"] == shas["many_files"]
    assert merge["touches_tests"] is False
    # a pure insertion inside parse_body counts for parse_body
    assert [p["symbol"] for p in merge["positives"]] == ["parse_body"]


def test_the_strict_consistency_filter_drops_only_from_train(tmp_path: Path) -> None:
    repo, shas = _python_repo(tmp_path / "shop")
    test = mine_repository(_git_dir(repo), "acme/shop", "python", shas["vague"], "test")
    vague = next(p for p in test.pairs if p["commit"] == shas["vague"])
    assert vague["consistency"] is False
    assert sorted(p["symbol"] for p in vague["positives"]) == ["a_value", "compute_total"]
    assert sorted(vague["files"]) == ["src/shop/a.py", "src/shop/invoice.py"]
    assert test.inconsistent_strict == 1

    train = mine_repository(_git_dir(repo), "acme/shop", "python", shas["vague"], "train")
    assert [p["commit"] for p in train.pairs] == [shas["merge"], shas["fix"]]
    assert train.dropped["inconsistent"] == 1


GO_V1 = """package calc

// Add adds two numbers.
func Add(a, b int) int {
\treturn a + b
}

// Divide divides a by b.
func Divide(a, b int) int {
\treturn a / b
}
"""


def test_a_go_fix_gives_the_method_codeatlas_indexes(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "calc")
    repo.write("calc.go", GO_V1)
    repo.write("calc_test.go", "package calc\n")
    repo.commit("Initial version of the calculator package with add and divide")
    repo.write(
        "calc.go",
        GO_V1.replace("\treturn a / b\n", "\tif b == 0 {\n\t\treturn 0\n\t}\n\treturn a / b\n"),
    )
    repo.write("calc_test.go", "package calc\n\n// covers Divide\n")
    fix = repo.commit("Divide panics with a division by zero when b is zero, see GH-7")
    repo.write("go.mod", "module calc\n\ngo 1.22\n")
    repo.commit("Bump golang.org/x/text from 0.3.0 to 0.3.8")

    pairs = mine_repository(repo.path / ".git", "acme/calc", "go", "HEAD", "dev").pairs
    assert [p["commit"] for p in pairs] == [fix]
    divide = next(s for s in parse_file("calc.go", GO_V1.encode()).symbols if s.name == "Divide")
    assert pairs[0]["positives"] == [
        {
            "path": "calc.go",
            "symbol": divide.qualified_name,
            "kind": divide.kind,
            "start_line": divide.start_line,
            "end_line": divide.end_line,
        }
    ]
    assert [n["symbol"] for n in pairs[0]["negatives"]] == ["calc.Add"]
    assert pairs[0]["touches_tests"] is True


def test_splits_are_by_repository_and_recorded_once(tmp_path: Path) -> None:
    assert manifest.hash_split("acme/shop") == manifest.hash_split("ACME/Shop")
    names = [f"owner{i}/project{i}" for i in range(400)]
    splits = [manifest.hash_split(n) for n in names]
    assert 0.6 < splits.count("train") / 400 < 0.8
    assert splits.count("test") > splits.count("dev") > 0
    # a language whose hashes gave no test repository gets one from its fifth on
    entries = [RepoEntry(f"o/train{i}", "go", "0" * 40, "train") for i in range(4)]
    assert manifest.assign_split("o/next", "go", entries) == "test"

    path = tmp_path / "repos.json"
    entries.append(RepoEntry("o/next", "go", "1" * 40, "test", {"pairs": 3}))
    manifest.save(entries, path)
    assert manifest.load(path) == sorted(entries, key=lambda e: e.repo)


def test_build_writes_one_file_per_repository_and_names_missing_mirrors(
    tmp_path: Path, capsys
) -> None:
    mirrors = tmp_path / "mirrors"
    repo, shas = _python_repo(mirrors / "acme+shop" / "repo")
    path = tmp_path / "repos.json"
    entries = [
        RepoEntry("acme/shop", "python", shas["vague"], "test"),
        RepoEntry("acme/absent", "go", "2" * 40, "train"),
    ]
    manifest.save(entries, path)
    out = tmp_path / "out"
    assert (
        main(["build", "--manifest", str(path), "--mirrors", str(mirrors), "--out", str(out)]) == 0
    )

    printed = capsys.readouterr().out
    assert "fetch github:acme/absent first" in printed
    rows = [
        json.loads(line) for line in (out / "python" / "acme+shop.jsonl").read_text().splitlines()
    ]
    assert [r["commit"] for r in rows] == [shas["vague"], shas["merge"], shas["fix"]]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["languages"]["python"]["pairs"] == {"test": 3}
    assert summary["languages"]["python"]["inconsistent_strict"] == {"test": 1}
    recorded = {e.repo: e for e in manifest.load(path)}
    assert recorded["acme/shop"].counts["pairs"] == 3
    assert recorded["acme/absent"].counts == {}

    # a rebuild from the recorded manifest gives the same file
    before = (out / "python" / "acme+shop.jsonl").read_bytes()
    build(manifest.load(path)[1:], mirrors, out)
    assert (out / "python" / "acme+shop.jsonl").read_bytes() == before


def test_a_commit_missing_from_the_mirror_is_reported_like_a_missing_mirror(
    tmp_path: Path, capsys
) -> None:
    mirrors = tmp_path / "mirrors"
    repo = GitRepo(mirrors / "acme+shop" / "repo")
    repo.write("a.py", "def f():\n    return 1\n")
    repo.commit("Initial commit of the package with its first function f")
    path = tmp_path / "repos.json"
    manifest.save([RepoEntry("acme/shop", "python", "3" * 40, "train")], path)
    assert (
        main(
            [
                "build",
                "--manifest",
                str(path),
                "--mirrors",
                str(mirrors),
                "--out",
                str(tmp_path / "out"),
            ]
        )
        == 0
    )
    assert "fetch github:acme/shop first" in capsys.readouterr().out
    assert not (tmp_path / "out" / "python" / "acme+shop.jsonl").exists()


def test_a_query_keeps_the_problem_and_drops_what_describes_the_commit() -> None:
    from lab.fixes.messages import clean_query, skip_reason

    message = (
        "fix(client): skip an undefined entry inside a form array (#4410)\n\n"
        "* fix(client): skip an undefined entry inside a form array\n\n"
        "* address review comments\n\n"
        "<!-- Please describe your change -->\n"
        "- [x] Add tests\n"
        "Fixes #4400\n\n"
        "Co-authored-by: Someone <someone@example.com>"
    )
    assert clean_query(message) == "fix(client): skip an undefined entry inside a form array"
    assert skip_reason(message) is None
    assert skip_reason("docs: explain how the client encodes form arrays with undefined") == (
        "not_behaviour"
    )
    assert skip_reason("Merge branch 'main' into fix-form-arrays") == "merge_of_branch"
    assert skip_reason("Bump lodash from 4.17.20 to 4.17.21 in the website folder") == (
        "dependency_update"
    )
    assert skip_reason("Fix crash") == "short_message"


def test_a_form_feed_inside_a_changed_line_is_part_of_the_line(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "pages")
    source = "int page(int n)\n{\n\treturn n;\n}\n\f\nint other(void)\n{\n\treturn 0;\n}\n"
    repo.write("src/page.c", source)
    repo.commit("Initial import of the pager with its page and other functions")
    repo.write("src/page.c", source.replace("\treturn n;\n", "\treturn n + 1;\f\r\n"))
    fix = repo.commit("Fix off-by-one in page numbering when the pager starts (#3)")

    pairs = mine_repository(repo.path / ".git", "acme/pages", "c", "HEAD", "test").pairs
    assert [p["commit"] for p in pairs] == [fix]
    assert [p["symbol"] for p in pairs[0]["positives"]] == ["page"]


QUEUE_JS = """function createQueue(worker) {
    const tasks = [];
    return {
        push(task) {
            tasks.push(task);
        },
        drain() {
            while (tasks.length) worker(tasks.shift());
        },
    };
}

module.exports = createQueue;
"""

QUEUE_TEST_JS = """const assert = require('assert');
const createQueue = require('../lib/queue');

describe('queue', () => {
    it('runs every task', () => {
        const seen = [];
        const q = createQueue((t) => seen.push(t));
        q.push(1);
        q.drain();
        assert.deepEqual(seen, [1]);
    });
});
"""


def test_a_test_suite_in_a_folder_the_layouts_do_not_name_is_not_the_fixs_code(
    tmp_path: Path,
) -> None:
    repo = GitRepo(tmp_path / "queue")
    repo.write("lib/queue.js", QUEUE_JS)
    repo.write("mocha_test/queue.js", QUEUE_TEST_JS)
    repo.commit("Initial version of the queue with push and drain for workers")
    repo.write("lib/queue.js", QUEUE_JS.replace("while (tasks.length)", "while (tasks.length > 0)"))
    repo.write("mocha_test/queue.js", QUEUE_TEST_JS.replace("[1]", "[1] /* drained */"))
    fix = repo.commit("Fix drain stopping early when a task is falsy in the queue (#31)")

    pairs = mine_repository(repo.path / ".git", "acme/queue", "javascript", "HEAD", "dev").pairs
    assert [p["commit"] for p in pairs] == [fix]
    # `mocha_test/` is no test folder by its name; its content is mocha's
    assert pairs[0]["files"] == ["lib/queue.js"]
    assert {p["path"] for p in pairs[0]["positives"]} == {"lib/queue.js"}
    assert pairs[0]["touches_tests"] is True


RANGE_RS = """pub fn clamp(value: i64, low: i64, high: i64) -> i64 {
    if value < low {
        return low;
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamps_below() {
        assert_eq!(clamp(-5, 0, 10), 0);
    }
}
"""


def test_a_rust_fix_gives_its_code_not_the_inline_tests_it_changed(tmp_path: Path) -> None:
    """Rust keeps unit tests in the file they test: the functions of its `mod tests` that a fix
    changes are the fix's tests (`locate` and search count them so), not positives; a commit that
    changes only those is no pair."""
    repo = GitRepo(tmp_path / "range")
    repo.write("src/lib.rs", RANGE_RS)
    repo.commit("Initial version of the range helpers with clamp and its tests")
    fixed = RANGE_RS.replace(
        "    value\n}", "    if value > high {\n        return high;\n    }\n    value\n}"
    )
    fixed = fixed.replace(
        "assert_eq!(clamp(-5, 0, 10), 0);",
        "assert_eq!(clamp(-5, 0, 10), 0);\n        assert_eq!(clamp(50, 0, 10), 10);",
    )
    repo.write("src/lib.rs", fixed)
    fix = repo.commit("Fix clamp returning values above the upper bound, closes #12")
    repo.write("src/lib.rs", fixed.replace("clamp(50, 0, 10), 10", "clamp(11, 0, 10), 10"))
    repo.commit("Fix the clamp test to check the value just above the bound, see #13")

    pairs = mine_repository(repo.path / ".git", "acme/range", "rust", "HEAD", "dev").pairs
    assert [p["commit"] for p in pairs] == [fix]
    assert [p["symbol"] for p in pairs[0]["positives"]] == ["clamp"]
    assert all("tests::" not in n["symbol"] for n in pairs[0]["negatives"])
    assert pairs[0]["touches_tests"] is True
