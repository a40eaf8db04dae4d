"""`codeatlas webhooks --listen HOST:PORT`: the push webhook receiver (ASGI, uvicorn)."""

from __future__ import annotations

import argparse
import logging
import sys

from core.config import parse_listen

DEFAULT_PORT = 8090


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `webhooks` command."""
    p = subparsers.add_parser(
        "webhooks",
        help="receive GitHub/GitLab/Bitbucket/Gitea push webhooks",
        description="Verify push webhooks with each repository's secret (`codeatlas repo"
        " secret`), store them, and let the Dagster sensor `webhook_push_sensor` index them."
        " Point the host at http://HOST:PORT/webhooks.",
    )
    # not 8765, the port docs/mcp.md gives `serve-mcp --http`: both run on one machine
    p.add_argument(
        "--listen",
        default=f"127.0.0.1:{DEFAULT_PORT}",
        metavar="HOST:PORT",
        help=f"where to listen (default 127.0.0.1:{DEFAULT_PORT})",
    )
    p.add_argument(
        "--max-body-bytes",
        type=int,
        default=5 * 1024 * 1024,
        help="refuse larger requests with 413 (default 5 MiB)",
    )
    p.add_argument(
        "--dagster-url",
        metavar="URL",
        help="launch each push's run at once through this Dagster webserver (`codeatlas dev`'s"
        " UI, e.g. http://127.0.0.1:3000; default CODEATLAS_DAGSTER_URL); without it the"
        " sensor launches it on its next pass (every 5 s)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Serve the receiver until interrupted."""
    import uvicorn

    from core.config import load_settings
    from core.database import ensure_index_database
    from core.request_guard import uvicorn_settings
    from orchestration.webhooks.app import build_app
    from orchestration.webhooks.launch import DirectLauncher, Webserver
    from orchestration.webhooks.spool import DeliverySpool

    # one line per accepted or refused delivery (never headers, bodies or secrets)
    logging.getLogger("codeatlas.webhooks").setLevel(logging.INFO)
    host, port = parse_listen(args.listen)
    settings = load_settings()
    url = ensure_index_database(settings)
    dagster_url = args.dagster_url or settings.dagster_url
    launcher = DirectLauncher(settings, url, Webserver(dagster_url)) if dagster_url else None
    app = build_app(
        url,
        secret_key=settings.secret_key,
        max_body_bytes=args.max_body_bytes,
        launcher=launcher,
        # pushes that come while the database is down wait here, and are stored when it is back
        spool=DeliverySpool.in_state_dir(settings.state_dir),
    )
    print(f"receiving push webhooks on http://{host}:{port}/webhooks", file=sys.stderr)
    if dagster_url:
        print(
            f"launching their runs through the Dagster webserver at {dagster_url}", file=sys.stderr
        )
    uvicorn.run(app, host=host, port=port, log_level="info", access_log=False, **uvicorn_settings())
    return 0
