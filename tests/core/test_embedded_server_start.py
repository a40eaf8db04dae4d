"""Starting the embedded server on a fresh machine (issue 48): as root it needs a system account,
made with `useradd` from /usr/sbin, which the PATH of `env -i` lacks; a start that fails says
why in one line and names a log that exists."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest

from core import embedded_server
from core.database import _start_embedded
from core.errors import DatabaseUnavailableError

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the system account is made as root only")


def test_a_command_starts_the_server_with_the_path_env_i_gives(tmp_path: Path):
    """`env -i HOME=… PATH=/usr/bin:/bin`: no /usr/sbin, no virtualenv on the path."""
    state = tmp_path / "state"
    env = {
        "HOME": str(tmp_path / "home"),
        "PATH": "/usr/bin:/bin",
        "CODEATLAS_STATE_DIR": str(state),
        "CODEATLAS_SERVER_IDLE_SECONDS": "0",
        "CODEATLAS_EMBEDDING_PROVIDER": "fake",
    }
    try:
        done = subprocess.run(
            [sys.executable, "-m", "codeatlas.cli", "status"],
            env=env,
            cwd=Path(__file__).resolve().parents[2],
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr
        assert "no repositories yet" in done.stdout
    finally:
        embedded_server.stop(state / "postgres")


@as_root
def test_the_system_account_is_made_with_useradd_from_sbin_when_path_lacks_it(monkeypatch):
    name = f"ca_test_{os.getpid()}"
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    try:
        embedded_server.ensure_system_user(name)
        assert pwd.getpwnam(name).pw_name == name
        embedded_server.ensure_system_user(name)  # there already: nothing to do
    finally:
        userdel = embedded_server.system_tool("userdel")
        assert userdel is not None
        subprocess.run([userdel, name], capture_output=True)


@as_root
def test_no_useradd_anywhere_is_a_message_that_says_what_to_do(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(embedded_server, "SYSTEM_TOOL_FOLDERS", ())
    monkeypatch.setattr(embedded_server, "SYSTEM_USER", f"ca_absent_{os.getpid()}")
    with pytest.raises(embedded_server.StartFailure) as failure:
        embedded_server.ensure_system_user(embedded_server.SYSTEM_USER)
    assert "no `useradd` was found" in str(failure.value)
    assert "create that account, or run codeatlas as a normal user" in str(failure.value)


def test_a_failed_start_names_the_servers_complaint_and_a_log_that_exists(tmp_path: Path):
    """A data folder of another PostgreSQL version: the server itself refuses to start."""
    pgdata = tmp_path / "state" / "postgres"
    pgdata.mkdir(parents=True)
    (pgdata / "PG_VERSION").write_text("9.6\n")
    with pytest.raises(DatabaseUnavailableError) as error:
        _start_embedded(pgdata, idle_seconds=0)
    embedded_server._attached.pop(pgdata, None)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"could not start the embedded PostgreSQL in {pgdata}: pg_ctl")
    assert "the server's log says: " in message and "postgresql.conf" in message
    log = Path(message.split("Details are in ", 1)[1].split(";", 1)[0])
    assert log == pgdata.parent / embedded_server.START_LOG
    assert "Traceback" in log.read_text() and "pg_ctl" in log.read_text()
    assert "CODEATLAS_DATABASE_URL" in message


def test_a_tool_missing_from_path_is_named_as_the_cause(tmp_path: Path):
    pgdata = tmp_path / "postgres"
    pgdata.mkdir()
    try:
        subprocess.run(["no-such-tool-48"], check=True)
    except FileNotFoundError as exc:
        failure = embedded_server.start_failure(pgdata, exc)
    assert failure.cause.startswith("the command 'no-such-tool-48' was not found on PATH")
    assert failure.log is not None and failure.log.is_file()
