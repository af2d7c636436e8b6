"""Unit tests of `cli._args`: how option values are read."""

from __future__ import annotations

import argparse

import pytest

from loopmetric.cli._args import whole, whole_or_none


@pytest.mark.parametrize("text, value", [
    pytest.param("3", 3, id="number"),
    pytest.param("none", None, id="none"),
    pytest.param("None", None, id="None"),
    pytest.param("off", None, id="off"),
    pytest.param("OFF", None, id="OFF"),
])
def test_whole_or_none(text, value):
    assert whole_or_none(text) == value


@pytest.mark.parametrize("read, text, says", [
    pytest.param(whole_or_none, "many", "Expected a whole number or 'none', but got 'many'", id="whole-or-none"),
    pytest.param(whole, "2.5", "Expected a whole number, but got '2.5'", id="whole"),
])
def test_what_is_not_a_whole_number_is_refused(read, text, says):
    with pytest.raises(argparse.ArgumentTypeError, match=says):
        read(text)
