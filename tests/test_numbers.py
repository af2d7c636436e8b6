"""Numbers are written one way wherever loopmetric prints them."""

from __future__ import annotations

import pytest

from loopmetric._numbers import count, money, number, rates


@pytest.mark.parametrize(("written", "expected"), [
    pytest.param(number(660.0), "660", id="whole-float-without-decimals"),
    pytest.param(number(1627), "1,627", id="thousands-separated"),
    pytest.param(number(0.5), "0.50", id="fraction-two-decimals"),
    pytest.param(count(1, "trace"), "1 trace", id="one"),
    pytest.param(count(2, "trace"), "2 traces", id="two"),
    pytest.param(count(0, "trace"), "0 traces", id="none"),
    pytest.param(count(1627, "step"), "1,627 steps", id="thousands-with-a-noun"),
    pytest.param(count(3, "match", "matches"), "3 matches", id="own-plural"),
    pytest.param(money(0.0021), "$0.0021", id="under-a-dollar"),
    pytest.param(money(1234.5), "$1,234.50", id="dollars"),
    pytest.param(rates(0.5, 0.9), ("0.50", "0.90"), id="rates-apart-at-two-places"),
    pytest.param(rates(0.5, 0.501), ("0.500", "0.501"), id="rates-told-apart"),
    pytest.param(rates(0.949999, 0.95), ("0.949999", "0.950000"), id="rates-six-places"),
    pytest.param(rates(0.1234561, 0.1234562), ("0.123456", "0.123456"), id="rates-never-past-six-places"),
])
def test_numbers_are_written_one_way(written, expected):
    assert written == expected


@pytest.mark.parametrize(("value", "written"), [
    pytest.param(1.0, "$1.00", id="exactly-a-dollar-to-the-cent"),
    pytest.param(1.5, "$1.50", id="over-a-dollar-to-the-cent"),
    pytest.param(0.5, "$0.5000", id="twin-under-a-dollar-four-decimals"),
    pytest.param(0.9876, "$0.9876", id="twin-just-under-a-dollar-four-decimals"),
])
def test_a_dollar_or_more_is_written_to_the_cent(value, written):
    assert money(value) == written
