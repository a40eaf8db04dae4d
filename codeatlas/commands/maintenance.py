"""Maintenance commands: `repo add|secret`, `models list|upgrade|drop`, `prune --keep N`."""

import argparse
import secrets
import sys
from pathlib import Path

from core.config import environment_variable
from core.embedding_providers import PROVIDER_NAMES
from core.errors import CodeatlasError, ConfigurationError

PROVIDERS = ("github", "gitlab", "bitbucket", "gitea")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `repo`, `models` and `prune` commands."""
    repo = subparsers.add_parser("repo", help="register repositories and their webhook secrets")
    repo_sub = repo.add_subparsers(dest="repo_command", required=True, metavar="ACTION")
    add = repo_sub.add_parser("add", help="register a repository without indexing it yet")
    add.add_argument("name")
    add.add_argument("origin", metavar="PATH_OR_URL")
    add.add_argument("--branch", help="tracked branch (default: the origin's HEAD branch)")
    add.set_defaults(handler=repo_add)
    secret = repo_sub.add_parser(
        "secret", help="set a repository's webhook secret (read from stdin, never echoed)"
    )
    secret.add_argument("name")
    secret.add_argument("--provider", required=True, choices=PROVIDERS)
    source = secret.add_mutually_exclusive_group()
    source.add_argument("--from-env", metavar="VAR", help="read the secret from this variable")
    source.add_argument(
        "--generate",
        action="store_true",
        help="generate a random secret and print it once (to paste on the host)",
    )
    secret.set_defaults(handler=repo_secret)

    models = subparsers.add_parser("models", help="embedding models: list, upgrade, drop")
    models_sub = models.add_subparsers(dest="models_command", required=True, metavar="ACTION")
    models_sub.add_parser("list", help="models, their vectors and users").set_defaults(
        handler=models_list
    )
    up = models_sub.add_parser(
        "upgrade",
        help="start moving repositories to a new embedding model",
        description="Records the model, marks repositories as upgrading and launches a backfill"
        " of the chunk_embeddings asset over every partition for it (run by the daemon of"
        " `codeatlas dev`, listed under Backfills in the UI; --wait runs its partitions here)."
        " The old model serves queries until every snapshot has the new model's vectors, then"
        " each repository switches in one transaction. The model is recorded in the database:"
        " every process indexes new commits with it from then on, whatever its own"
        " CODEATLAS_EMBEDDING_PROVIDER/MODEL (API keys still come from each one's environment).",
    )
    up.add_argument("--provider", choices=PROVIDER_NAMES)
    up.add_argument("--model")
    up.add_argument("--dimensions", type=int)
    up.add_argument("--base-url")
    up.add_argument("--repo", action="append", help="only this repository (repeatable)")
    up.add_argument(
        "--wait", action="store_true", help="run the backfill's partitions now, in this process"
    )
    up.set_defaults(handler=models_upgrade)
    drop = models_sub.add_parser("drop", help="delete a model's vectors (refused while in use)")
    drop.add_argument("name")
    drop.set_defaults(handler=models_drop)

    prune = subparsers.add_parser(
        "prune", help="delete old snapshots, keeping the newest N (and the current one)"
    )
    prune.add_argument("--keep", type=int, default=5, metavar="N")
    prune.add_argument("--dry-run", action="store_true")
    prune.set_defaults(handler=run_prune)


def _database():
    from core.config import load_settings
    from core.database import ensure_index_database

    settings = load_settings()
    return settings, ensure_index_database(settings)


def repo_add(args: argparse.Namespace) -> int:
    """Register NAME → ORIGIN (tracking a branch) so webhooks and sensors can index it."""
    from core.database import transaction
    from indexing import git_source, repositories

    settings, url = _database()
    name = repositories.validate_name(args.name)
    origin = args.origin
    if not git_source.is_remote(origin):
        origin = str(git_source.open_local(Path(origin).expanduser().resolve()))
    checkout = repositories.git_dir(settings, origin, fetch=git_source.is_remote(origin))
    branch = args.branch or git_source.current_branch(checkout)
    if branch is None:
        raise ConfigurationError(f"{origin} has no HEAD branch: pass --branch")
    git_source.resolve_commit(checkout, branch)  # the branch must exist
    with transaction(url) as conn:
        repositories.register(conn, name, origin, branch)
    print(f"registered {name} ({git_source.clean_origin(origin)}), tracking {branch}")
    return 0


PLAIN_TEXT_WARNING = (
    "warning: the secret is stored in plain text (CODEATLAS_SECRET_KEY is not set); to encrypt"
    " it, set CODEATLAS_SECRET_KEY to a long random value (e.g. the output of `python3 -c"
    " 'import secrets; print(secrets.token_urlsafe(32))'`) in the environment of every codeatlas"
    " command and of the webhook receiver: `codeatlas webhooks` encrypts the secrets stored in"
    " plain text when it starts with the key"
)


def _read_secret(args: argparse.Namespace) -> str:
    if args.generate:
        return secrets.token_urlsafe(32)
    if args.from_env:
        value = environment_variable(args.from_env)
        if not value:
            raise ConfigurationError(f"environment variable {args.from_env} is empty or unset")
        return value.strip()
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass("webhook secret: ").strip()
    return sys.stdin.readline().strip()


def repo_secret(args: argparse.Namespace) -> int:
    """Store a webhook secret for one provider (the receiver verifies pushes with it)."""
    from core.database import transaction
    from indexing import repositories
    from orchestration.webhooks.events import set_secret

    value = _read_secret(args)
    if len(value) < 8:
        raise ConfigurationError("a webhook secret needs at least 8 characters")
    settings, url = _database()
    with transaction(url) as conn:
        repo = repositories.get(conn, args.name)
        set_secret(conn, repo.id, args.provider, value, settings.secret_key)
    if settings.secret_key is None:
        # stored as given: anyone with a copy of the database (a backup, a dump) can read it
        print(PLAIN_TEXT_WARNING, file=sys.stderr)
    if args.generate:
        print(value)
        print(
            f"(shown once) paste it as the {args.provider} webhook secret of {args.name}",
            file=sys.stderr,
        )
    else:
        print(f"{args.provider} webhook secret of {args.name} stored", file=sys.stderr)
    return 0


def models_list(args: argparse.Namespace) -> int:
    """One line per model: dimensions, provider, vectors, repositories using it."""
    from core.database import connect
    from indexing import chunk_embeddings
    from indexing.embedding_registry import chosen_model

    _settings, url = _database()
    with connect(url) as conn:
        chosen = chosen_model(conn)
        rows = chunk_embeddings.models_overview(conn)
    if not rows:
        print("no embedding models yet")
    for r in rows:
        made = f"{r['provider']}:{r['provider_model'] or 'default'}" if r["provider"] else "?"
        print(
            f"{r['name']}  {r['dimensions']} dims  {made}  {r['n']} vectors"
            f"  active in: {r['active'] or '-'}  upgrading: {r['upgrading'] or '-'}"
            + ("  (chosen: new commits are embedded with it)" if r["name"] == chosen else "")
        )
    return 0


def models_upgrade(args: argparse.Namespace) -> int:
    """Record the new model, mark repositories upgrading, launch (or run) its backfill."""
    from core.database import connect
    from indexing import embedding_registry
    from orchestration import model_upgrade
    from orchestration.instance import open_instance

    settings, url = _database()
    configured = embedding_registry.configured_spec(settings)
    spec = embedding_registry.ModelSpec(
        args.provider or configured.provider,
        args.model if args.provider else (args.model or configured.model),
        args.dimensions if args.provider else (args.dimensions or configured.dimensions),
        args.base_url if args.provider else (args.base_url or configured.base_url),
    )
    embedder = embedding_registry.embedder_for_spec(spec, settings)
    model = embedder.model_name
    with connect(url) as conn:
        embedding_registry.record_model(conn, embedder, spec)
        conn.commit()
        started = model_upgrade.start_upgrade(conn, model, args.repo)
        # recorded in the database: every process (the daemon, run workers, other shells)
        # indexes with it from now on, whatever its own CODEATLAS_EMBEDDING_* settings
        embedding_registry.choose_model(conn, model)
        conn.commit()
    print(
        f"model {model} ({embedder.dimensions} dims):"
        f" upgrading {', '.join(started['upgrading']) or 'none'};"
        f" activated directly {', '.join(started['activated']) or 'none'};"
        f" already active {', '.join(started['already']) or 'none'}"
    )
    if not started["upgrading"]:
        return 0
    instance = open_instance(settings)
    launched, results = None, []
    with connect(url) as conn:
        if args.wait:
            from orchestration.definitions import defs

            results = model_upgrade.run_upgrade_here(
                instance,
                conn,
                model,
                started["upgrading"],
                defs,
                progress=lambda msg: print(msg, file=sys.stderr),
            )
        else:
            launched = model_upgrade.launch_upgrade_backfill(
                instance, conn, model, started["upgrading"]
            )
    if not args.wait:
        if launched is not None:
            backfill_id, keys = launched
            print(
                f"backfill {backfill_id} of chunk_embeddings for {model} over {len(keys)}"
                " partitions: the daemon of `codeatlas dev` runs it (the UI lists it under"
                " Backfills); `codeatlas status` shows coverage",
                file=sys.stderr,
            )
        else:
            print(f"a backfill in progress for {model} covers every partition", file=sys.stderr)
        return 0
    for item in results:
        state = "switched" if item["switched"] else "not complete yet (a push moved it?)"
        print(f"{item['repository']}: embedded {item['embedded']} contents, {state}")
    return 0


def models_drop(args: argparse.Namespace) -> int:
    """Delete a model's vectors and its index."""
    from core.database import connect
    from orchestration.model_upgrade import drop_model

    _settings, url = _database()
    with connect(url) as conn:
        deleted = drop_model(conn, args.name)
    print(f"dropped model {args.name}: {deleted} vectors deleted")
    return 0


def prune_snapshots(conn, keep: int, dry_run: bool = False) -> dict:
    """Delete ready snapshots older than the newest `keep` per repository (never the current),
    then file versions no snapshot or overlay uses, then vectors no chunk uses."""
    from indexing import chunk_embeddings, snapshots, storage

    if keep < 1:
        raise CodeatlasError("--keep must be at least 1")
    with conn.transaction():
        ids = snapshots.beyond_newest(conn, keep)
        counts = {"snapshots": len(ids), "file_versions": 0, "vectors": 0}
        if dry_run:
            return counts
        snapshots.delete(conn, ids)
        counts["file_versions"] = storage.delete_unused_file_versions(conn)
        counts["vectors"] = chunk_embeddings.delete_unused(conn)
    return counts


def run_prune(args: argparse.Namespace) -> int:
    """Print what was (or would be) deleted."""
    from core.database import connect

    _settings, url = _database()
    with connect(url) as conn:
        counts = prune_snapshots(conn, args.keep, args.dry_run)
    verb = "would delete" if args.dry_run else "deleted"
    print(
        f"{verb} {counts['snapshots']} snapshots, {counts['file_versions']} file versions,"
        f" {counts['vectors']} vectors"
    )
    return 0
