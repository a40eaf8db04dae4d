"""`codeatlas repo secret` without CODEATLAS_SECRET_KEY stores the secret as given and says so,
with how to set the key (issue 48); with the key it is stored encrypted, without a warning."""

from __future__ import annotations

import io

from codeatlas.cli import main
from codeatlas.commands.maintenance import PLAIN_TEXT_WARNING
from core.database import connect


def stored(url: str) -> str:
    with connect(url) as conn:
        row = conn.execute("SELECT secret FROM repository_webhooks").fetchone()
    return row["secret"]


def test_a_secret_stored_in_plain_text_is_a_warning_that_says_how_to_set_the_key(
    settings_env, database_url, git_repo, monkeypatch, capsys
):
    git_repo.write("a.py", "x = 1\n")
    git_repo.commit()
    monkeypatch.delenv("CODEATLAS_SECRET_KEY", raising=False)
    assert main(["repo", "add", "shop", str(git_repo.path)]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("a-long-webhook-secret\n"))
    assert main(["repo", "secret", "shop", "--provider", "github"]) == 0

    err = capsys.readouterr().err
    assert PLAIN_TEXT_WARNING in err
    assert "stored in plain text (CODEATLAS_SECRET_KEY is not set)" in err
    assert "set CODEATLAS_SECRET_KEY to a long random value" in err
    assert "secrets.token_urlsafe(32)" in err
    assert "a-long-webhook-secret" not in err
    assert stored(database_url) == "a-long-webhook-secret"


def test_with_the_key_set_the_secret_is_encrypted_and_nothing_is_said_about_it(
    settings_env, database_url, git_repo, monkeypatch, capsys
):
    git_repo.write("a.py", "x = 1\n")
    git_repo.commit()
    monkeypatch.setenv("CODEATLAS_SECRET_KEY", "a-key-for-this-test-only-0123456789")
    assert main(["repo", "add", "shop", str(git_repo.path)]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("a-long-webhook-secret\n"))
    assert main(["repo", "secret", "shop", "--provider", "github"]) == 0

    err = capsys.readouterr().err
    assert "plain text" not in err and "warning" not in err
    assert err.strip() == "github webhook secret of shop stored"
    assert stored(database_url).startswith("enc:v1:")
