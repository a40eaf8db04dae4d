"""A held-out behaviour set on a PHP framework none of the other sets or the exclusion list
hold: 43 questions of how yii2 does something, in words, over its framework sources at the
commit lab/fixes/repos.json records for it (the test split, never trained on). See README.md.

Selected as `php2` by the lab's benchmarks (`python -m lab.quality --sets php2`), never among
the default or `all` sets.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.eval_sets import EvalSet

FOLDER = Path(__file__).resolve().parent

PHP2 = EvalSet(
    name="php2",
    language="PHP",
    folder=FOLDER,
    source_suffixes=(".php",),
    cast_language=None,
    corpus_dir="corpus-php2",
    guard_prefixes=(),
    fetch_tools=("git", "tar"),
    description="the yii2 framework's sources at 45e679d7 (held out: behaviour questions only)",
    reference=(0.0, 0.0, 0.0),  # no README reference: the BM25 baseline runs beside it
)

# the same questions over the codebase as a checkout holds it: the framework with its tests and
# its English guide (Markdown), which compete with the code for a question's words; the windows
# baseline reads the PHP files (tests included), as the eval READMEs' reference does
PHP2_CHECKOUT = EvalSet(
    name="php2-checkout",
    language="PHP",
    folder=FOLDER / "checkout",
    source_suffixes=(".php",),
    cast_language=None,
    corpus_dir="corpus-php2-checkout",
    guard_prefixes=(),
    fetch_tools=("git", "tar"),
    description="yii2 at 45e679d7: the framework, its tests and its English guide",
    reference=(0.0, 0.0, 0.0),
)
