"""What reads as declining (`_declines.declines`): a reply that says something cannot be done.
Two such replies with nothing new between are one refusal at a lower similarity, in words
(`repeated_reply`) and in meaning (`conversation_loop`)."""

from __future__ import annotations

import pytest

from loopmetric.detectors._declines import declines


@pytest.mark.parametrize(("phrase", "declining"), [
    pytest.param("Insurance cannot be added", True, id="cannot"),
    pytest.param("Insurance can not be added", True, id="can-not"),
    pytest.param("I can't add insurance", True, id="cant"),
    pytest.param("I can’t add insurance", True, id="cant-curly"),
    pytest.param("I'm unable to add insurance", True, id="unable-to"),
    pytest.param("I am not able to add insurance", True, id="not-able-to"),
    pytest.param("Adding insurance is not possible", True, id="not-possible"),
    pytest.param("Adding insurance won't be allowed", True, id="wont-be-allowed"),
    pytest.param("Our policy does not allow adding insurance", True, id="does-not-allow"),
    pytest.param("Our policy doesn't permit adding insurance", True, id="doesnt-permit"),
    pytest.param("I don't have the ability to add insurance", True, id="dont-have-the-ability"),
    pytest.param("There is no way to add insurance now", True, id="no-way-to"),
    pytest.param("I'm not in a position to add insurance", True, id="not-in-a-position-to"),
    pytest.param("There are no exceptions for insurance", True, id="no-exceptions"),
    pytest.param("Insurance can no longer be added", True, id="can-no-longer"),
    pytest.param("Insurance can be added", False, id="twin-can"),
    pytest.param("I am able to add insurance", False, id="twin-able-to"),
    pytest.param("Adding insurance is possible", False, id="twin-possible"),
    pytest.param("Our policy allows adding insurance", False, id="twin-allows"),
    pytest.param("I have the ability to add insurance", False, id="twin-have-the-ability"),
    pytest.param("There is a way to add insurance now", False, id="twin-a-way-to"),
    pytest.param("Insurance can still be added", False, id="twin-can-still"),
])
def test_what_reads_as_declining(phrase, declining):
    text = f"{phrase}, sorry."
    assert declines(text) is declining
    assert declines(text.upper()) is declining  # the cheap check before the pattern folds case too
    assert declines(text, folded=" ".join(text.split()).casefold()) is declining  # an output's `normalized`


@pytest.mark.parametrize(("text", "declining"), [
    pytest.param("IT IS NOT POSSIBLE", True, id="upper-case"),
    pytest.param("NO EXCEPTIONS", True, id="upper-case-no-exceptions"),
    pytest.param("Can\tNot", False, id="a-tab-is-no-space-of-the-pattern"),
    pytest.param("No  way to do it", False, id="two-spaces-are-not-one"),
    pytest.param("Sorry, I cannot.", True, id="cannot-at-the-end"),
    pytest.param("That, I can't.", True, id="cant-at-the-end"),
    pytest.param("Our policy doesn’t permit it", True, id="a-curly-nt-alone"),
])
def test_the_cheap_check_agrees_with_the_pattern_whatever_the_case_or_spacing(text, declining):
    assert declines(text) is declining
    assert declines(text, folded=" ".join(text.split()).casefold()) is declining
