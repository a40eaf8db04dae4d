"""The README runs as written: every command it shows exists with the options it shows, each
one's `--help` works from the installed entry point, and the ones that are safe run verbatim."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from codeatlas.cli import build_parser
from core.layers import package_folders

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = (ROOT / "README.md", ROOT / "docs" / "mcp.md")
VENV_BIN = Path(sys.executable).parent
# run verbatim against the test's database: they read or check, and change nothing
SAFE = ("codeatlas status", "codeatlas verify-tools --lock mcp_app/tools.lock --stdio")


def documented_commands() -> list[str]:
    """Each `codeatlas …` line of the documents' bash blocks, without its comment."""
    commands = []
    for document in DOCUMENTS:
        blocks = re.findall(r"```bash\n(.*?)```", document.read_text(), flags=re.DOTALL)
        for line in "\n".join(blocks).splitlines():
            line = line.split("  #", 1)[0].strip()
            if line.startswith("codeatlas "):
                commands.append(line.rstrip("\\").strip())
    return commands


def subcommand_of(argv: list[str]) -> tuple[list[str], argparse.ArgumentParser]:
    """The words naming the (nested) subcommand of `codeatlas …` and its parser."""
    parser, words = build_parser(), []
    for token in argv[1:]:
        choices = next(
            (a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)), {}
        )
        if token not in choices:
            break
        words.append(token)
        parser = choices[token]
    return words, parser


def shell_environment() -> dict[str, str]:
    """The test's environment with the venv's `bin/` left off PATH (no activated venv)."""
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if Path(p) != VENV_BIN]
    return {**os.environ, "PATH": os.pathsep.join(path)}


def run_as_written(line: str) -> subprocess.CompletedProcess:
    """Run a documented line with the installed `codeatlas` executable, from the repository."""
    argv = shlex.split(line)
    return subprocess.run(
        [str(VENV_BIN / "codeatlas"), *argv[1:]],
        cwd=ROOT,
        env=shell_environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )


COMMANDS = documented_commands()


def test_the_documents_show_every_command_a_user_runs():
    top = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    documented = {subcommand_of(shlex.split(c))[0][0] for c in COMMANDS}
    assert set(top.choices) == documented
    assert all(any(c.startswith(s) for c in COMMANDS) for s in SAFE)


@pytest.mark.parametrize("line", COMMANDS)
def test_every_documented_command_exists_with_the_options_it_shows(line: str):
    argv = shlex.split(line.replace("[", " ").replace("]", " "))
    words, parser = subcommand_of(argv)
    assert words, f"{line!r} names no codeatlas command"
    known = set(parser._option_string_actions)
    shown = {token.split("=", 1)[0] for token in argv if token.startswith("--")}
    assert shown <= known, f"{line!r}: codeatlas {' '.join(words)} has no {shown - known}"


@pytest.mark.parametrize(
    "words", sorted({" ".join(subcommand_of(shlex.split(c))[0]) for c in COMMANDS})
)
def test_the_help_of_every_documented_command_runs_from_the_installed_entry_point(words: str):
    proc = run_as_written(f"codeatlas {words} --help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: codeatlas")


@pytest.mark.parametrize("prefix", SAFE)
def test_the_safe_documented_commands_run_verbatim(settings_env, prefix: str):
    [line] = [c for c in COMMANDS if c.startswith(prefix)][:1]
    proc = run_as_written(line)
    assert proc.returncode == 0, f"{line!r} failed:\n{proc.stderr}"


def test_every_documented_setting_is_read_by_the_code():
    names = set(re.findall(r"`(CODEATLAS_[A-Z_]+)`", (ROOT / "README.md").read_text()))
    code = "\n".join(
        p.read_text() for folder in package_folders() for p in (ROOT / folder).rglob("*.py")
    )
    for name in names:
        assert name in code, f"the README documents {name}, which nothing reads"


def test_the_settings_table_lists_every_variable_the_settings_read():
    rows = [
        line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("| `")
    ]
    documented = {
        name for row in rows for name in re.findall(r"`(CODEATLAS_[A-Z_]+)`", row.split(" | ")[0])
    }
    read = set(re.findall(r'"(CODEATLAS_[A-Z_]+)"', (ROOT / "core/config.py").read_text()))
    assert read, "no variable found in config.py: the pattern is out of date"
    assert documented == read


def test_a_principal_is_created_before_a_command_names_it():
    # run top to bottom, each document's commands work: `token create --principal P` and
    # `grant P REPO` fail for a principal not created yet
    for document in DOCUMENTS:
        created: set[str] = set()
        for line in documented_commands_of(document):
            argv = shlex.split(line)
            if argv[1:3] == ["principal", "create"]:
                created.add(argv[3])
            elif argv[1:3] == ["token", "create"]:
                principal = argv[argv.index("--principal") + 1]
                assert principal in created, f"{document.name}: {line!r} before its principal"
            elif argv[1] == "grant":
                assert argv[2] in created, f"{document.name}: {line!r} before its principal"


def documented_commands_of(document: Path) -> list[str]:
    """Each `codeatlas …` line of one document's bash and sh blocks, in order."""
    blocks = re.findall(r"```(?:bash|sh)\n(.*?)```", document.read_text(), flags=re.DOTALL)
    lines = [line.split("  #", 1)[0].strip() for line in "\n".join(blocks).splitlines()]
    return [line.rstrip("\\").strip() for line in lines if line.startswith("codeatlas ")]


def test_no_heading_appears_twice():
    for document in (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))):
        headings = re.findall(r"^#{1,4} .+$", document.read_text(), flags=re.MULTILINE)
        repeated = {h for h in headings if headings.count(h) > 1}
        assert not repeated, f"{document.name} repeats {sorted(repeated)}"


def test_the_webhook_receiver_and_the_http_mcp_server_have_different_default_ports():
    _, webhooks = subcommand_of(["codeatlas", "webhooks"])
    receiver = next(a.default for a in webhooks._actions if a.dest == "listen")
    mcp_ports = set(
        re.findall(r"serve-mcp --http [\w.]+:(\d+)", (ROOT / "docs/mcp.md").read_text())
    )
    assert mcp_ports and receiver.rpartition(":")[2] not in mcp_ports


def test_version_is_the_package_version(capsys):
    from importlib.metadata import version

    from codeatlas.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"codeatlas {version('codeatlas')}"
