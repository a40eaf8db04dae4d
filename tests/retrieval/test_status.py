"""The freshness report on a real indexed repository: the indexed commit against the branch head
of the local checkout, the lag in commits and seconds, and vector coverage per model."""

from __future__ import annotations


def _status(conn, **kwargs):
    from core.config import load_settings
    from retrieval.status import repository_status

    return repository_status(conn, load_settings(), **kwargs)


def test_an_up_to_date_repository_has_no_lag_and_full_coverage(conn, shop_repo):
    [status] = _status(conn)
    assert status["name"] == "shop" and status["branch"] == "main"
    assert status["current_commit"] == status["branch_head"] == shop_repo.sha
    assert (status["lag_commits"], status["lag_seconds"]) == (0, 0)
    assert status["indexed_at"] is not None and status["indexed_at"].endswith("+00:00")
    [(model, coverage)] = status["coverage"].items()
    assert model == status["active_model"]
    embedded, _, total = coverage.partition(" ")[0].partition("/")
    assert embedded == total and int(total) > 0 and coverage.endswith("(100.0%)")
    assert status["upgrading_model"] is None and status["pending_pushes"] == 0


def test_commits_not_indexed_yet_show_as_lag_behind_the_branch_head(conn, shop_repo, git_repo):
    git_repo.write("shop/tax.py", "def vat(amount):\n    return amount * 0.2\n")
    git_repo.commit("tax")
    git_repo.write("shop/tax.py", "def vat(amount, rate=0.2):\n    return amount * rate\n")
    head = git_repo.commit("rate")
    [status] = _status(conn)
    assert status["current_commit"] == shop_repo.sha and status["branch_head"] == head
    assert status["lag_commits"] == 2
    assert status["lag_seconds"] is not None and status["lag_seconds"] >= 0


def test_a_repository_whose_checkout_is_gone_reports_no_head_rather_than_failing(conn, shop_repo):
    import shutil

    shutil.rmtree(shop_repo.path)
    [status] = _status(conn)
    assert status["current_commit"] == shop_repo.sha
    assert (status["branch_head"], status["lag_commits"], status["lag_seconds"]) == (
        None,
        None,
        None,
    )


def test_the_report_is_narrowed_by_name_or_by_ids_and_names_the_primarys_commits(conn, shop_repo):
    from retrieval.status import primary_commits

    [row] = conn.execute("SELECT id FROM repositories WHERE name = 'shop'").fetchall()
    assert [s["name"] for s in _status(conn, only="shop")] == ["shop"]
    assert _status(conn, only="elsewhere") == []
    assert [s["name"] for s in _status(conn, repository_ids=[row["id"]])] == ["shop"]
    assert _status(conn, repository_ids=[]) == []
    assert primary_commits(conn, [row["id"]]) == {"shop": shop_repo.sha}


def test_a_primary_is_no_replica(conn, shop_repo):
    from retrieval.status import replica_lag

    assert replica_lag(conn, conn) is None
