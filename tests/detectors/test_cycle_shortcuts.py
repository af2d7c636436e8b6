"""The cycle rule's faster forms say what the plain ones say.

A call's arguments are folded to single spaces for the drifting cycle's keys; arguments with
nothing to fold are kept as they are, without the split. The table holds texts at the edges of
that check (a space at either end, two in a row, an escaped newline or tab, a control character,
a space outside ASCII) with the folded text worked out by hand, and the plain form beside it.
"""

from __future__ import annotations

import pytest

from loopmetric.detectors._cycles import _spacing_folded


def _plain(args: str) -> str:
    """The form the fast one stands for, written as it was."""
    return " ".join(args.replace("\\n", " ").replace("\\t", " ").split())


@pytest.mark.parametrize(("args", "expected"), [
    pytest.param('{"cmd":"ls -la"}', '{"cmd":"ls -la"}', id="canonical-json-nothing-to-fold"),
    pytest.param('{"cmd":"ls  -la"}', '{"cmd":"ls -la"}', id="two-spaces-in-a-row"),
    pytest.param('{"cmd":"a\\nb"}', '{"cmd":"a b"}', id="an-escaped-newline"),
    pytest.param('{"cmd":"a\\tb"}', '{"cmd":"a b"}', id="an-escaped-tab"),
    pytest.param('{"q":"a\\\\b"}', '{"q":"a\\\\b"}', id="an-escaped-backslash-kept"),
    pytest.param(" ls", "ls", id="a-space-at-the-start"),
    pytest.param("ls ", "ls", id="a-space-at-the-end"),
    pytest.param("ls\t-la", "ls -la", id="a-raw-tab"),
    pytest.param("ls\n-la", "ls -la", id="a-raw-newline"),
    pytest.param("ls\x1f-la", "ls -la", id="a-unit-separator-is-whitespace-to-split"),
    pytest.param("ls\x0b-la", "ls -la", id="a-vertical-tab"),
    pytest.param("ls\u00a0-la", "ls -la", id="a-no-break-space-outside-ascii"),
    pytest.param("ls\u2003 -la", "ls -la", id="an-em-space-beside-a-space"),
    pytest.param("café -la", "café -la", id="letters-outside-ascii-kept"),
    pytest.param("", "", id="empty"),
    pytest.param("  ", "", id="spaces-only"),
])
def test_arguments_folded_as_by_the_plain_form(args, expected):
    assert _spacing_folded(args) == expected
    assert _plain(args) == expected
