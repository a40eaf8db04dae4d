"""Fixes described by release notes (lab/fix_notes.py): the notes read as a reporter
would write them, one instance per release with a single fix, and the gold read from the two
releases' code with the real parser."""

from __future__ import annotations

from lab import fix_notes
from lab.loc_corpora import sdist_releases, tag

NOTES = """\
==========================
Django 3.2.5 release notes
==========================

*July 1, 2021*

Django 3.2.5 fixes a security issue with severity "high" and several bugs in
3.2.4.

CVE-2021-35042: Potential SQL injection via unsanitized ``QuerySet.order_by()`` input
=====================================================================================

Unsanitized user input passed to ``QuerySet.order_by()`` could bypass intended
column reference validation.

Bugfixes
========

* Fixed a regression in Django 3.2 that caused a crash of
  ``QuerySet.values_list(…, named=True)`` after ``prefetch_related()``
  (:ticket:`32812`).

* Fixed a bug where :meth:`~django.db.models.Model.full_clean` ignored
  :class:`forms.Field <django.forms.Field>` (:ticket:`1`, :ticket:`2`).
"""


def test_notes_give_each_security_section_and_bugfix_bullet_as_a_reporter_writes_it():
    entries = fix_notes.note_entries(NOTES)
    assert entries == [
        "CVE-2021-35042: Potential SQL injection via unsanitized `QuerySet.order_by()` input\n\n"
        "Unsanitized user input passed to `QuerySet.order_by()` could bypass intended\n"
        "column reference validation.",
        "Fixed a regression in Django 3.2 that caused a crash of\n"
        "`QuerySet.values_list(…, named=True)` after `prefetch_related()`.",
        "Fixed a bug where `full_clean` ignored\n`forms.Field`.",
    ]
    assert fix_notes.note_entries("Django 1.0.1\n============\n\nNothing here.\n") == []


def test_the_releases_are_the_final_ones_with_an_sdist_in_version_order():
    files = [
        "Django-3.2.10.tar.gz",
        "Django-3.2.9.tar.gz",
        "django-4.0.tar.gz",
        "Django-4.0rc1.tar.gz",
        "Django-3.2.9-py3-none-any.whl",
        "Django-1.0.zip",
        "Django-Extensions-1.0.tar.gz",
    ]
    assert sdist_releases("Django", files) == ["1.0", "3.2.9", "3.2.10", "4.0"]


def test_a_patch_release_is_paired_with_the_newest_release_of_its_line_below_it():
    versions = ["3.1", "3.1.1", "3.1.3", "3.2", "3.2.1", "3.2.4", "4.0", "4.0.2", "4.1"]
    assert fix_notes.patch_releases(versions, "3.2") == [
        ("3.2", "3.2.1"),
        ("3.2.1", "3.2.4"),
        ("4.0", "4.0.2"),
    ]
    assert ("3.1.1", "3.1.3") in fix_notes.patch_releases(versions, "3.1")


def test_only_releases_with_one_fix_are_kept_and_a_note_repeated_on_an_older_line_once():
    one = "Bugfixes\n========\n\n* Fixed a crash of ``Paginator`` in {}.\n"
    two = one.format("4.0") + "\n* Fixed ``Form.clean``.\n"
    notes = {
        release: fix_notes.note_entries(text)
        for release, text in {
            "3.2.5": one.format("3.2.4"),
            "4.0.1": one.format("4.0"),
            "4.0.2": two,
            "4.1.1": "None.\n",
        }.items()
    }
    pairs = [("3.2.4", "3.2.5"), ("4.0", "4.0.1"), ("4.0.1", "4.0.2"), ("4.1", "4.1.1")]
    fixes, dropped = fix_notes.single_fixes(pairs + [("4.1.1", "4.1.2")], notes)
    assert fixes == [("4.0", "4.0.1", "Fixed a crash of `Paginator` in 4.0.")]
    assert dropped == {
        "the same note on a newer line": 1,
        "several fixes in one release": 1,
        "no fix": 1,
        "no release notes": 1,
    }


OLD = b"""\
class Paginator:
    def page(self, number):
        return number

    def count(self):
        def inner():
            return 1
        return inner()

    def gone(self):
        return None


def validate(value):
    return value
"""
NEW = b"""\
class Paginator:
    def page(self, number):
        return number

    def count(self):
        def inner():
            return 2
        return inner()


def validate(value):
    return value


def added():
    return 0
"""


def test_the_changed_functions_are_those_whose_text_differs_or_that_went():
    # `inner` is part of `count`, as in the symbol table; `added` was not in the release before
    assert fix_notes.changed_functions("pkg/paginator.py", OLD, NEW) == [
        "Paginator.count",
        "Paginator.gone",
    ]
    assert fix_notes.changed_functions("pkg/paginator.py", OLD, OLD) == []
    # a deleted file: every function of it changed
    assert "validate" in fix_notes.changed_functions("pkg/paginator.py", OLD, None)


def test_gold_is_read_from_the_two_releases_code_and_leaves_tests_and_new_files_out(git_repo):
    git_repo.write("pkg/paginator.py", OLD.decode())
    git_repo.write("tests/test_paginator.py", "def test_page():\n    assert 1\n")
    git_repo.commit("1.0.1")
    git_repo.git("tag", tag("1.0.1"))
    git_repo.write("pkg/paginator.py", NEW.decode())
    git_repo.write("tests/test_paginator.py", "def test_page():\n    assert 2\n")
    git_repo.write("pkg/new.py", "def fresh():\n    return 1\n")
    git_repo.commit("1.0.2")
    git_repo.git("tag", tag("1.0.2"))

    labels = fix_notes.release_gold(git_repo.path, "1.0.1", "1.0.2")

    assert labels == ["pkg/paginator.py:Paginator.count", "pkg/paginator.py:Paginator.gone"]
    instances, dropped = fix_notes.build_instances(
        "pkg",
        [("1.0.1", "1.0.2", "Fixed `Paginator.count`."), ("1.0.2", "1.0.2", "Nothing changed.")],
        git_repo.path,
    )
    assert [(i.instance_id, i.release, i.gold_files, i.issue) for i in instances] == [
        ("pkg-1.0.2", "1.0.1", ["pkg/paginator.py"], "Fixed `Paginator.count`.")
    ]
    assert dropped == {"no function changed": 1}


CHANGES = """\
Version 2.0.2
-------------

Unreleased

-   Fix type annotation for ``teardown_*`` methods. :issue:`4093`


Version 2.0.1
-------------

Released 2021-05-21

-   Re-add the ``filename`` parameter in ``send_from_directory``. The
    ``filename`` parameter has been renamed to ``path``. :pr:`4019`
-   Fix some types. :issue:`4040`, :pr:`4026`
"""

HISTORY = """\
## Version 8.1.1

-   Fix an issue with decorator typing. {issue}`2227`

2.25.1 (2020-12-16)
-------------------

**Bugfixes**

- Requests now treats `application/json` as `utf8` by default. (#5673)

**Dependencies**

- Requests now supports chardet v4.x.
"""


def test_a_changelog_gives_each_release_its_bullets_without_their_references():
    assert fix_notes.changelog_entries(CHANGES) == {
        "2.0.2": ["Fix type annotation for `teardown_*` methods."],
        "2.0.1": [
            "Re-add the `filename` parameter in `send_from_directory`. The\n"
            "`filename` parameter has been renamed to `path`.",
            "Fix some types.",
        ],
    }
    assert fix_notes.changelog_entries(HISTORY) == {
        "8.1.1": ["Fix an issue with decorator typing."],
        "2.25.1": [
            "Requests now treats `application/json` as `utf8` by default.",
            "Requests now supports chardet v4.x.",
        ],
    }
