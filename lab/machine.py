"""What the numbers were measured on: machine, load, software versions, git commit, date."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.workspace import REPO_ROOT


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ram_gib() -> float | None:
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        return round(kb / 1024 / 1024, 1)
    except (OSError, ValueError, IndexError):
        return None


def _git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(REPO_ROOT), *args], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def describe(database_url: str | None = None) -> dict:
    """nproc, CPU model, RAM, load average, date, git commit, Python/PostgreSQL versions."""
    info = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "ram_gib": _ram_gib(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "git_commit": _git("rev-parse", "--short=12", "HEAD"),
        "git_dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
    }
    if database_url:
        from core.database import connection

        with connection(database_url) as conn:
            info["postgresql"] = conn.execute("SHOW server_version").fetchone()["server_version"]
            row = conn.execute(
                "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
            ).fetchone()
            info["pgvector"] = row["extversion"] if row else None
    return info


def summary(info: dict | None = None) -> str:
    """`describe()` in one line: CPU, cores, RAM, OS and load average."""
    m = info or describe()
    load = "/".join(f"{x:.1f}" for x in m["load_average"])
    ram = f", {m['ram_gib']:.0f} GiB RAM" if m["ram_gib"] else ""
    return f"{m['cpu_model']}, {m['nproc']} CPUs{ram}, {m['os']}; load average {load}"
