"""The one line a failed index run prints names what went wrong."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from orchestration.index_run import run_failure


def _unparsable(path: str) -> None:
    raise ValueError(f"{path}: nesting too deep to parse")


def test_an_error_raised_in_a_worker_process_is_named_not_its_quoted_traceback():
    # a worker's error arrives with its traceback as a `__cause__` whose first line is `"""`:
    # the run once failed with "failed: """." and nothing else
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        error = pool.submit(_unparsable, "drivers/clk/cgu.c").exception()
    assert isinstance(error, ValueError)
    message = str(run_failure("linux@abc123", error))
    assert "drivers/clk/cgu.c: nesting too deep to parse" in message
    assert '"""' not in message
    assert message.startswith("the index run of linux@abc123 failed:")
