"""Registered repositories: plain names, stored origins without credentials, local git dirs."""

from __future__ import annotations

import pytest

from core.config import load_settings
from core.database import transaction
from core.errors import (
    ConfigurationError,
    NotAGitRepositoryError,
    RepositoryNotFoundError,
)
from indexing import repositories


@pytest.mark.parametrize("name", ["shop", "acme/shop", "shop-2.0_beta"])
def test_plain_names_are_accepted(name):
    assert repositories.validate_name(name) == name


@pytest.mark.parametrize("name", ["", "../shop", "shop@main", "my shop", "/shop", "a" * 201])
def test_names_that_would_break_partition_keys_or_urls_are_refused(name):
    with pytest.raises(ConfigurationError, match="invalid repository name"):
        repositories.validate_name(name)


@pytest.mark.parametrize(
    ("origin", "name"),
    [
        ("/src/shop", "shop"),
        ("/src/shop/", "shop"),
        ("https://github.com/acme/shop.git", "shop"),
        ("git@github.com:acme/shop.git", "shop"),
        ("/src/my shop", "my-shop"),
    ],
)
def test_default_names_come_from_the_last_part_of_the_origin(origin, name):
    assert repositories.default_name(origin) == name


def test_registering_again_keeps_the_branch_and_drops_credentials(database_url):
    with transaction(database_url) as conn:
        repositories.register(conn, "shop", "https://user:secret@example.com/acme/shop.git", "dev")
        again = repositories.register(conn, "shop", "https://example.com/acme/shop.git", None)
    assert again.origin == "https://example.com/acme/shop.git"
    assert again.default_branch == "dev"


def test_an_unknown_repository_says_how_to_add_one(database_url):
    with (
        transaction(database_url) as conn,
        pytest.raises(RepositoryNotFoundError, match="codeatlas index PATH --name NAME"),
    ):
        repositories.get(conn, "nowhere")


def test_a_local_origin_is_its_own_git_dir_and_a_plain_folder_is_refused(
    settings_env, git_repo, tmp_path
):
    settings = load_settings()
    assert repositories.git_dir(settings, str(git_repo.path)) == git_repo.path
    (tmp_path / "plain").mkdir()
    with pytest.raises(NotAGitRepositoryError):
        repositories.git_dir(settings, str(tmp_path / "plain"))
