"""The benchmark's issue templates around a fix message, and what `locate` keeps of them."""

from __future__ import annotations

import pytest

from lab.loc_templates import TEMPLATES, filed
from retrieval.issue_text import without_template

MESSAGE = (
    "Fix nested structs on 32bit archs\n\n"
    "The encoder lost the `Inner` field's alignment when the struct was nested."
)


LEFT = {
    "go-questions": "<pre> $ go version </pre> Yes. "
    "<code>go env</code> Output<br><pre> $ go env </pre>"
}


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_a_message_filed_through_a_template_reads_as_the_message_again(template):
    report = filed(MESSAGE, template)
    assert report.startswith("Fix nested structs on 32bit archs\n\n")
    assert len(report.split()) > 2 * len(MESSAGE.split())  # the boilerplate is most of it
    # what locate reads: the title and the reporter's words, nothing of the template but, in
    # Go's, the commands it quotes and the answer it asks for (the reporter's own)
    title, body = MESSAGE.split("\n\n")
    left = LEFT.get(template, "").split()
    assert without_template(report).split() == title.split() + left + body.split()


def test_a_message_of_one_line_is_its_own_body():
    report = filed("Crash on empty input", "issue-form")
    assert without_template(report).split() == ["Crash", "on", "empty", "input"] * 2
