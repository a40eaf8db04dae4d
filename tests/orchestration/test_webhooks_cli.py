"""`codeatlas repo add|secret` and `codeatlas webhooks` argument handling."""

import io

import pytest

from codeatlas.cli import main
from codeatlas.commands.webhooks import parse_listen
from core.database import connect
from core.errors import ConfigurationError


def secrets_of(url: str) -> list[tuple[str, str]]:
    with connect(url) as conn:
        return [
            (r["provider"], r["secret"])
            for r in conn.execute(
                "SELECT provider, secret FROM repository_webhooks ORDER BY provider"
            ).fetchall()
        ]


def test_repo_add_registers_the_tracked_branch_and_secrets_come_from_stdin_unprinted(
    settings_env, database_url, git_repo, monkeypatch, capsys
):
    git_repo.write("a.py", "x = 1\n")
    git_repo.commit()
    assert main(["repo", "add", "acme/shop", str(git_repo.path)]) == 0
    with connect(database_url) as conn:
        row = conn.execute("SELECT origin, default_branch FROM repositories").fetchone()
    assert (row["origin"], row["default_branch"]) == (str(git_repo.path), "main")

    monkeypatch.setattr("sys.stdin", io.StringIO("a-long-webhook-secret\n"))
    assert main(["repo", "secret", "acme/shop", "--provider", "github"]) == 0
    monkeypatch.setenv("HOOK_SECRET", "gitlab-token-123")
    assert (
        main(["repo", "secret", "acme/shop", "--provider", "gitlab", "--from-env", "HOOK_SECRET"])
        == 0
    )
    out = capsys.readouterr()
    assert "a-long-webhook-secret" not in out.out + out.err
    assert secrets_of(database_url) == [
        ("github", "a-long-webhook-secret"),
        ("gitlab", "gitlab-token-123"),
    ]


def test_a_generated_secret_is_printed_once_and_stored(
    settings_env, database_url, git_repo, capsys
):
    git_repo.write("a.py", "x = 1\n")
    git_repo.commit()
    main(["repo", "add", "shop", str(git_repo.path)])
    capsys.readouterr()
    assert main(["repo", "secret", "shop", "--provider", "gitea", "--generate"]) == 0
    printed = capsys.readouterr().out.strip()
    assert secrets_of(database_url) == [("gitea", printed)]
    assert len(printed) >= 32


def test_short_secrets_and_unknown_repositories_are_user_errors(
    settings_env, database_url, monkeypatch, capsys
):
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert main(["repo", "secret", "nope", "--provider", "github"]) == 1
    monkeypatch.setattr("sys.stdin", io.StringIO("long-enough-secret\n"))
    assert main(["repo", "secret", "nope", "--provider", "github"]) == 1
    err = capsys.readouterr().err
    assert "at least 8 characters" in err and "no repository named 'nope'" in err
    assert "Traceback" not in err


def test_listen_addresses_are_parsed_or_refused():
    assert parse_listen("0.0.0.0:9000") == ("0.0.0.0", 9000)
    assert parse_listen("[::1]:8765") == ("::1", 8765)
    with pytest.raises(ConfigurationError):
        parse_listen("localhost")


def test_with_the_secret_key_set_repo_secret_stores_the_secret_sealed_with_it(
    settings_env, database_url, git_repo, monkeypatch
):
    from orchestration.webhooks.secret_box import unseal

    git_repo.write("a.py", "x = 1\n")
    git_repo.commit()
    main(["repo", "add", "shop", str(git_repo.path)])
    monkeypatch.setenv("CODEATLAS_SECRET_KEY", "a-long-random-key-for-tests")
    monkeypatch.setattr("sys.stdin", io.StringIO("a-long-webhook-secret\n"))
    assert main(["repo", "secret", "shop", "--provider", "github"]) == 0
    [(provider, stored)] = secrets_of(database_url)
    assert stored.startswith("enc:v1:") and "a-long-webhook-secret" not in stored
    assert unseal(stored, "a-long-random-key-for-tests") == "a-long-webhook-secret"
