"""A sentence's stances, asks and offers read in one pass (`_stances.stances_and_acts`), each pattern
searched for only in a sentence that holds one of the words every phrasing of it holds: the words
never hide a phrasing. Each phrasing of each pattern, in lower and upper case and in a sentence
that is not all ASCII, is read as the pattern alone reads it; sentences with none of the words are
read as taking no stance."""

from __future__ import annotations

import pytest

from loopmetric.detectors._stances import _ASKS, _OFFER, _STANCES, stances_and_acts, stems

PHRASINGS = {
    "ask": ["Could you check it?", "Please send the form.", "Kindly confirm the date.", "I need the number.",
            "We require a photo.", "Let me know when."],
    "no": ["That is not possible.", "No.", "Nope, gone.", "Nah, it left.", "Never mind the fee.",
           "Without a receipt it fails.", "Nor the other one.", "It cannot move.", "A non refundable fare.",
           "We are unable to.", "It doesn't work."],
    "rule": ["You must sign.", "Only one per day.", "Our policy says so.", "Policies differ.", "The rule is old.",
             "Rules are rules.", "A form is required.", "It requires a form.", "The guideline says.",
             "Pets allowed.", "Smoking permitted.", "Terms apply.", "You have to sign.", "It has to wait.",
             "We need to see it.", "He needs to sign.", "At least two days.", "No later than Friday."],
    "sorry": ["Sorry about that.", "I apologize.", "I apologise.", "Apologies for that.", "I regret it."],
    "offer": ["I can fix it today.", "We could try again.", "I will send it.", "I would be happy to help.",
              "We would be glad to help.", "I am happy to call.", "I'll do it.", "We'll do it.",
              "I'm happy to call.", "Would you like me to call?", "Shall I call?", "Should I call?",
              "Want me to call?", "Here is what I can do."],
    "asks": ["Once you have it, we go.", "If you can find the slip, we go.", "If you send the slip, we go.",
             "Send me the slip.", "Give me the slip.", "Tell me the slip.", "Share with me the slip.",
             "Send it over.", "Send that too.", "Send over the slip."],
    "none": ["The parcel left the depot.", "Your card arrives on Monday.", "Thanks for the details."],
}
# Letters the patterns' case folding reads as another letter, which lower() leaves as they are: a long s
# ("ſorry" is "sorry" to the pattern), and the Kelvin sign ("Kindly"), which lower() makes a k.
FOLDED = [pytest.param("I'm \u017forry about that.", id="sorry-with-a-long-s"),
          pytest.param("\u212aindly confirm the date.", id="ask-with-a-kelvin-sign")]
CASES = FOLDED + [pytest.param(sentence, id=f"{kind}-{n}{how}")
         for kind, sentences in PHRASINGS.items() for n, sentence in enumerate(sentences)
         for how, sentence in (("", sentence), ("-upper", sentence.upper()), ("-not-ascii", "Café, " + sentence))]


def alone(sentence):
    """What the patterns alone read in one sentence: its stances, whether it asks, whether it offers."""
    kinds = frozenset(kind for kind, pattern in _STANCES if pattern.search(sentence))
    offers = _OFFER.search(sentence) is not None and not {"no", "wait"} & kinds
    return kinds, _ASKS.search(sentence) is not None, offers


@pytest.mark.parametrize("sentence", CASES)
def test_the_words_searched_for_first_hide_no_phrasing(sentence):
    found, acts = stances_and_acts(sentence)
    kinds, asks, offers = alone(sentence)
    assert found.kinds == kinds
    assert acts.asks == (stems(sentence) if asks else frozenset())
    assert bool(acts.acting) is (asks or offers)
    assert bool(acts.offers) is offers


def test_every_kind_is_read():
    """(The table above exercises every stance, an ask besides them and an offer.)"""
    read = [stances_and_acts(sentence) for sentences in PHRASINGS.values() for sentence in sentences]
    assert set().union(*(found.kinds for found, _ in read)) >= {"ask", "no", "rule", "sorry"}
    assert any(acts.offers for _, acts in read) and any(acts.asks for _, acts in read)
