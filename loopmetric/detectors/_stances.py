"""What a reply to the other side does, in words: the stances it takes and what it says.

A conversation goes round when the agent, turn after turn, says the same thing in other
words. Two reworded replies rarely share their wording ("this ticket is non-refundable"
against "basic fares don't qualify for refunds"); what they share is what they *do* and
what they do it *about*:

- `ask`: a sentence that asks the other side for something ("Could you ...?", "please",
  "I need", "let me know");
- `no`: a sentence that says no (a negation: "not", "n't", "no", "nope", "nah", "never",
  "without", "unable");
- `rule`: a sentence that states a rule ("must", "only", "policy", "have to", "at least"), or
  says what stands as it is without a decline word ("the sale is final", "that fare stays as
  booked", "the amount remains with the ticket");
- `sorry`: a sentence that apologizes ("sorry", "apologize", "regret");
- `wait`: a sentence that asks the other side to wait while the agent says it is on it ("one
  moment", "bear with me", "I'm still checking", "checking on it now, this should take a
  second", or only what it is at: "Reviewing the details."): said turn after turn with nothing
  coming back, the agent is stalling.

Besides its stances, a reply may offer something (`offered`): a sentence in which the agent
proposes what it can do ("I can redirect it to a pickup point", "I could ask the courier to hold
it", "would you like me to transfer you?") and says no "no" (the decline beside it is no offer).

`Stances.about` holds the stems of the sentences that take a stance (what the ask, the no,
the rule is about); `Stances.stems` the stems of the whole reply (what it says at all).
Stems are content words (no stop words or other function words, `_FUNCTION`, none of the
courtesy words every support reply is made of, `_COURTESY`, nor the words that mark a
stance, `_MARKERS`) cut by a few English suffixes ("refunds", "refundable" and "refund"
are one stem; a consonant doubled before "-ing" or "-ed" is one: "squatting" and "squat").
Deterministic, offline, linear in the text.
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple

from .._memo import per_text
from ._similarity import STOP_WORDS

__all__ = ["Acts", "Stances", "asked", "asks", "offered", "offers_in", "proposed", "says_no",
           "sentences", "stances", "stances_and_acts", "stems", "waits_only"]

_WORD = re.compile(r"[a-z][a-z']{2,}")
_UPPER_PAIR = re.compile(r"\b[A-Z]{2}\b")  # "ID", "PO": an entity of two capitals is a content word
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_STANCES = (
    # ("please know", "please be assured", "please rest assured": the agent vouches, it asks for nothing)
    ("ask", re.compile(r"\?|\bplease\b(?!,?\s+(?:know|be assured|rest assured)\b)|\b(?:kindly|need|require)\b"
                       r"|\blet me know\b", re.IGNORECASE)),
    ("no", re.compile(r"\b(?:not|no|nope|nah|never|without|nor|cannot|non|unable)\b|n't\b", re.IGNORECASE)),
    # (a rule said without a decline word: what stands as it is, "that fare stays as booked", "the
    # sale is final", "the amount remains with the ticket")
    ("rule", re.compile(r"\b(?:must|only|polic(?:y|ies)|rules?|require[sd]?|guidelines?|allowed|permitted|terms)\b"
                        r"|\b(?:have|has|need|needs) to\b|\bat least\b|\bno later than\b"
                        r"|\b(?:final|firm|stays?|remains?)\b|\bas (?:it|they) (?:is|are|stands?)\b", re.IGNORECASE)),
    ("sorry", re.compile(r"\b(?:sorry|apologi[sz]e|apologies|regret)\b", re.IGNORECASE)),
    ("wait", re.compile(r"\b(?:(?:one|a|another)(?: more)? (?:moment|sec)|bear with|hang tight"
                        # ("hold on" as one asks a person to, not "the hold on mobile deposits")
                        r"|(?<!the )(?<!a )hold on|your patience|(?:taking|take) a look|looking into"
                        r"|(?:let me|I'll|I will|I'm|I am)"
                        r" (?:still )?(?:check|look|see|review|get back|find|pull)\w*"
                        r"|(?:take|takes|taking) (?:just )?(?:a|one) (?:sec|second|moment)(?=\s*(?:[.!,;]|$))"
                        r"|(?:still )?checking (?:on|into)|still checking)\b"
                        # (a sentence that says only what the agent is at: "Reviewing the details.", "Still
                        # going through the records.", "I'm working on it"; not one that goes on to say what it
                        # found: "Reviewing your statement: the charge is the annual fee")
                        r"|^\W*(?:(?:I'm|I am|we're|we are) )?(?:still )?(?:reviewing|going through|working on"
                        r"|digging into|investigating|searching)\b(?!.*[:\u2013\u2014])",
                        re.IGNORECASE)),
)
# The words of courtesy and of asking themselves: every reply of a support conversation is made
# of them, so two replies sharing them say nothing alike.
_COURTESY = frozenset("""
please provide need needs could would like let know share confirm help assist assistance able unable sorry
unfortunately understand happy any other question questions further feel free reach out also just sure certainly
thank thanks you're welcome great glad ensure anything else more details detail information kindly may might
want once ready have when get give tell make again however therefore apologize apologise apologies
inconvenience i'm i've i'll i'd you'll you've you'd don't can't won't isn't aren't doesn't didn't there's that's
it's we're they're afraid really very still yet already mentioned truly completely sincerely regret
""".split())
# English function words the shared stop list (`_similarity.STOP_WORDS`) leaves in: pronouns,
# determiners, conjunctions, prepositions and auxiliaries say what a sentence is about no more
# than "the" does ("who" in two sentences of a story is no subject in common).
_FUNCTION = frozenset("""
who whom whose whoever when where why how whether while until since because though although unless
if than too also once upon into onto over under off out down through during before after above
between against among along around across toward towards within without behind beyond near
been being had did does doing done got they them their theirs he him his she her hers us ours
these those some such each few most other others own same both all another every either neither
one ones two ever even yet again there's here's what's where's who's how's
""".split())
# The words that mark a stance: what a stance is about is the rest of its sentence.
_MARKERS = frozenset("""
need needs require required requires must only policy policies rule rules guideline guidelines allowed permitted
terms never without nor cannot non sorry apologize apologise apologies regret kindly
""".split())
_SUFFIXES = ("ations", "ation", "ables", "able", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly", "e", "y")
_DOUBLING = frozenset({"ings", "ing", "ed"})  # suffixes English writes after a doubled consonant ("swapped")
_UNDOUBLED = frozenset("bcdgkmnprtv")  # the consonants doubled only there ("call", "miss", "buzz" keep theirs)


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            # ("squatting", "swapped": one stem with "squat", "swap"; "adding" keeps its "add")
            if suffix in _DOUBLING and len(stem) >= 4 and stem[-1] == stem[-2] and stem[-1] in _UNDOUBLED:
                return stem[:-1]
            if suffix in _DOUBLING and stem[-1] == "y" and len(stem) >= 4:
                return stem[:-1]  # ("studying", "carrying": one stem with "study", "carry", whose "y" goes)
            return stem
    return word


def _words(text: str) -> list[str]:
    """The words of 3+ letters of lowercased `text`, a possessive's "'s" or a closing "'" cut."""
    return [word[:-2] if word.endswith("'s") else word.rstrip("'") for word in _WORD.findall(text)]


@per_text
def stems(text: str) -> frozenset[str]:
    """The stems of `text`'s content words (see the module docstring), once per distinct text while a
    trace is scored (a reply's sentences are read for its stances and for what it does)."""
    text = text.replace("’", "'")  # (a hyphen ends a word as any other sign does: "non-refundable" is two)
    found = {_stem(word) for word in _words(text.lower())
             if word not in STOP_WORDS and word not in _COURTESY and word not in _MARKERS and word not in _FUNCTION}
    found.update(pair.lower() for pair in _UPPER_PAIR.findall(text))
    return frozenset(found)


class Stances(NamedTuple):
    """The stances a reply takes (`kinds`), what they are about (`about`) and what it says (`stems`)."""

    kinds: frozenset[str]
    about: frozenset[str]
    stems: frozenset[str]


def stances(text: str) -> Stances:
    """The stances `text` takes, sentence by sentence (see the module docstring). Each sentence is
    stemmed once: the reply's stems are its sentences' (a split falls between words)."""
    return stances_and_acts(text, acts=False)[0]


class Acts(NamedTuple):
    """What a reply does, sentence by sentence (`stances_and_acts`)."""

    asks: frozenset[str]  # the stems of its sentences that ask the other side for something (`asks`)
    offers: tuple[frozenset[str], ...]  # the stems of each sentence that offers something (`offers_in`)
    acting: tuple[str, ...]  # the sentences that ask or offer, in order


_NO_ACTS = Acts(frozenset(), (), ())


def stances_and_acts(text: str, acts: bool = True) -> tuple[Stances, Acts]:
    """The stances `text` takes (`stances`) and, with `acts`, what it does (`Acts`: its sentences
    that ask, `asks`, and that offer, `offers_in`), in one pass over its sentences: each sentence is
    stemmed and searched for its stances once, and what it asks or offers is read from them (a
    sentence that takes the `ask` stance asks; one that says no or asks to wait offers nothing)."""
    kinds: set[str] = set()
    about: set[str] = set()
    said: set[str] = set()
    sought: set[str] = set()
    offers: list[frozenset[str]] = []
    acting: list[str] = []
    text = text.replace("’", "'")
    for sentence in _SENTENCE.split(text):
        found = stems(sentence)
        said |= found
        # (a pattern is searched for only in a sentence that holds one of the words each of its phrasings
        # holds, lowercased: most sentences hold none of a stance's; a sentence not all ASCII is searched
        # for every pattern, whose case folding reads letters of other scripts as lower() may not)
        low = sentence.lower() if sentence.isascii() else None
        taken = [kind for kind, pattern, words in _SCREENED
                 if (low is None or any(word in low for word in words)) and pattern.search(sentence)]
        if taken:
            kinds.update(taken)
            about |= found
        if not acts:
            continue
        offer = ("no" not in taken and "wait" not in taken
                 and (low is None or any(word in low for word in _OFFER_WORDS)) and _OFFER.search(sentence) is not None)
        if offer:
            offers.append(found)
        if "ask" in taken or ((low is None or any(word in low for word in _ASKS_BESIDES_WORDS))
                              and _ASKS_BESIDES.search(sentence) is not None):
            sought |= found
            acting.append(sentence)
        elif offer:
            acting.append(sentence)
    read = Stances(frozenset(kinds), frozenset(about), frozenset(said))
    return read, (Acts(frozenset(sought), tuple(offers), tuple(acting)) if acts else _NO_ACTS)


# Each stance's pattern with words, lowercased, one of which every phrasing it matches holds (none
# for `wait`, whose phrasings are too many: always searched).
_STANCE_WORDS = {
    "ask": ("?", "please", "kindly", "need", "require", "let me know"),
    "no": ("no", "nah", "never", "without", "unable", "n't"),  # (not, nope, nor, non, cannot: "no")
    "rule": ("must", "only", "polic", "rule", "require", "guideline", "allowed", "permitted", "terms", "have to",
             "has to", "need to", "needs to", "at least", "no later than", "final", "firm", "stay", "remain", "as it",
             "as they"),
    "sorry": ("sorry", "apologi", "regret"),
}
_SCREENED = tuple((kind, pattern, _STANCE_WORDS.get(kind, ("",))) for kind, pattern in _STANCES)
_NO = dict(_STANCES)["no"]
_ASK = dict(_STANCES)["ask"]


def asked(text: str) -> frozenset[str]:
    """The stems of `text`'s sentences that ask the other side for something (the `ask` stance):
    what a turn that answers it takes up."""
    return _stems_of_sentences(text, lambda sentence: _ASK.search(sentence) is not None)


def proposed(text: str) -> frozenset[str]:
    """The stems of `text`'s sentences that say no "no": what a reply asks for, suggests or
    tells (a sentence that refuses or denies something proposes none of it)."""
    return _stems_of_sentences(text, lambda sentence: _NO.search(sentence) is None)


# The agent proposing what it can do: "I"/"we" with "can", "could", "will", or "would you like me
# to", "shall I", "what I can do". ("I can't", "I can see why" and "I'll check" are left out by the
# caller: a sentence that says no, and one that asks to wait, offer nothing; a sentence of
# sympathy brings too few stems of its own to count.)
_OFFER = re.compile(r"\b(?:I|we) (?:can|could|will|would be (?:happy|glad) to|am happy to)\b|\b(?:I|we)'ll\b"
                    r"|\bI'm happy to\b|\bwould you like me to\b|\b(?:shall|should) I\b|\bwant me to\b"
                    r"|\bwhat I can do\b", re.IGNORECASE)


# Words, lowercased, one of which every phrasing `_OFFER` matches holds ("I can", "we could", "I will",
# "I'll", "happy to", "glad to", "would you like me to", "shall I", "should I", "want me to")
_OFFER_WORDS = (" can", " could", " will", "'ll", "happy", "glad", " me to", "shall i", "should i")


def offers_in(sentence: str) -> bool:
    """Whether `sentence` (one of `sentences`) offers something, as `offered` reads it."""
    return _OFFER.search(sentence) is not None and _NO.search(sentence) is None and _WAIT.search(sentence) is None


def offered(text: str) -> frozenset[str]:
    """The stems of `text`'s sentences that offer something: the agent proposes what it can do
    (`_OFFER`), saying no "no" and asking no one to wait ("I'm sorry, the address can't be changed.
    I can redirect it to a pickup point." offers "redirect", "pickup", "point")."""
    if _OFFER.search(text.replace("’", "'")) is None:  # (most replies offer nothing: one search)
        return frozenset()
    return _stems_of_sentences(text, offers_in)


def _stems_of_sentences(text: str, keep: Callable[[str], bool]) -> frozenset[str]:
    """The stems of `text`'s sentences that `keep` keeps (a curly apostrophe read as a straight one)."""
    found: set[str] = set()
    for sentence in _SENTENCE.split(text.replace("’", "'")):
        if keep(sentence):
            found |= stems(sentence)
    return frozenset(found)


_WAIT = dict(_STANCES)["wait"]


def waits_only(text: str) -> bool:
    """Whether every sentence of `text` that says anything (a stem) asks the other side to wait
    ("Let me look into that. One moment while I check the thermostat."): the reply does nothing
    but stall. A reply that asks to wait and says something else ("Let me check the menu. First,
    open the notebook ...") is no stall alone."""
    return all(_WAIT.search(sentence) is not None or not stems(sentence)
               for sentence in _SENTENCE.split(text.replace("’", "'")))


# A sentence that asks the other side for something: a question or a request ("please", "I'll need",
# "let me know"), or what the agent will do once they give it ("once you give me the number I can
# check", "if you can find it", "send it here").
_ASKS_BESIDES = re.compile(r"\bonce you\b|\bif you (?:can )?(?:find|send|share|give|provide|locate|get)\b"
                           r"|\b(?:send|give|tell|share with) me\b|\bsend (?:it|that|over)\b", re.IGNORECASE)
_ASKS_BESIDES_WORDS = ("once you", "if you", " me", "send ")  # (one of which each of its phrasings holds)
_ASKS = re.compile(f"{_ASK.pattern}|{_ASKS_BESIDES.pattern}", re.IGNORECASE)  # (the `ask` stance's words, or these)


def says_no(sentence: str) -> bool:
    """Whether `sentence` says no (the `no` stance: a negation)."""
    return _NO.search(sentence) is not None


def sentences(text: str) -> list[str]:
    """`text`'s sentences, as the stances are read (a curly apostrophe read as a straight one)."""
    return _SENTENCE.split(text.replace("’", "'"))


def asks(sentence: str) -> bool:
    """Whether `sentence` asks the other side for something (`_ASKS`)."""
    return _ASKS.search(sentence) is not None
