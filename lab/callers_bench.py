"""Precision and recall of find_callers on an eval set's verified call sites (callers.jsonl).

A returned call site counts when its path and line equal a gold one. Each function is asked
for by its name and the path of its definition (`find_callers(name, path=...)`), which is how a
caller tells apart two definitions with the same name (two entries are marked ambiguous).
Scored twice: every returned site (certain + ambiguous), and the certain ones only.
"""

from __future__ import annotations

from benchmarks.codeatlas_search import CodeatlasSearch
from benchmarks.eval_sets import EVAL_SETS, EvalSet


def _score(per_entry: dict, key: str) -> dict:
    tp = sum(e[key]["tp"] for e in per_entry.values())
    returned = sum(e[key]["returned"] for e in per_entry.values())
    expected = sum(e["gold"] for e in per_entry.values())
    precisions = [
        e[key]["tp"] / e[key]["returned"] if e[key]["returned"] else 0.0 for e in per_entry.values()
    ]
    recalls = [e[key]["tp"] / e["gold"] for e in per_entry.values()]
    return {
        "micro_precision": round(tp / returned, 3) if returned else None,
        "micro_recall": round(tp / expected, 3) if expected else None,
        "macro_precision": round(sum(precisions) / len(precisions), 3),
        "macro_recall": round(sum(recalls) / len(recalls), 3),
    }


def run(
    database_url: str,
    repository: str = "corpus",
    eval_set: EvalSet = EVAL_SETS["py"],
    entries: list[dict] | None = None,
) -> dict:
    """Micro- and macro-averaged precision/recall over the set's callers (or `entries`)."""
    try:
        from retrieval.graph import find_callers
    except ImportError:
        return {"available": False, "why": "retrieval.graph.find_callers does not exist"}
    entries = eval_set.callers() if entries is None else entries
    search = CodeatlasSearch(database_url, [repository])
    per_entry = {}
    try:
        for entry in entries:
            gold = {(c["path"], c["line"]) for c in entry["callers"]}
            _asked, sites = find_callers(
                search.conn, search.scope, entry["symbol"], path=entry["defined_in"]["path"]
            )
            search.conn.commit()
            got_all = {(s.path, s.line) for s in sites}
            got_certain = {(s.path, s.line) for s in sites if s.certainty == "certain"}
            per_entry[entry["id"]] = {
                "symbol": entry["symbol"],
                "unambiguous": entry.get("unambiguous", True),
                "gold": len(gold),
                "all": {"tp": len(gold & got_all), "returned": len(got_all)},
                "certain": {"tp": len(gold & got_certain), "returned": len(got_certain)},
            }
    finally:
        search.close()
    return {
        "available": True,
        "entries": len(entries),
        "all_sites": _score(per_entry, "all"),
        "certain_only": _score(per_entry, "certain"),
        "per_entry": per_entry,
    }
