"""Unit tests of `detectors._similarity`: content words, bigram Jaccard and rapidfuzz's Indel
ratio, each worked out by hand on small texts."""

from __future__ import annotations

import pytest

from loopmetric import detect_loops
from loopmetric.detectors._similarity import Words, _only_words_and_spaces, content_words, similarity
from tests._traces import agent, llm


@pytest.mark.parametrize("text, joined, bigrams", [
    pytest.param("alpha beta gamma", "alpha beta gamma", {("alpha", "beta"), ("beta", "gamma")},
                 id="plain-words"),
    pytest.param("the plan is to check the logs now", "plan check logs", {("plan", "check"), ("check", "logs")},
                 id="stop-words-dropped"),
    pytest.param("go to db ok run tests", "run tests", {("run", "tests")}, id="words-under-three-letters-dropped"),
    pytest.param("alpha, beta! (gamma)", "alpha beta gamma", {("alpha", "beta"), ("beta", "gamma")},
                 id="punctuation-regex-path"),
    pytest.param("alpha", "alpha", set(), id="one-word-no-bigram"),
    pytest.param("", "", set(), id="empty"),
    pytest.param("alpha beta alpha beta", "alpha beta alpha beta", {("alpha", "beta"), ("beta", "alpha")},
                 id="a-bigram-met-twice-is-one"),
    pytest.param("run the run of my run", "run run run", {("run", "run")}, id="stop-words-between-make-no-gap"),
    pytest.param("our plan_b x_y to a_", "plan_b x_y", {("plan_b", "x_y")}, id="underscores-are-word-characters"),
    pytest.param("café crème brûlée", "café crème brûlée", {("café", "crème"), ("crème", "brûlée")},
                 id="non-ascii-words"),
    pytest.param("café, crème!", "café crème", {("café", "crème")}, id="non-ascii-with-punctuation"),
])
def test_content_words(text, joined, bigrams):
    words = content_words(text)
    assert (words.joined, words.bigrams, words.count) == (joined, bigrams, len(joined.split()))


def test_a_huge_output_is_compared_on_its_head_and_tail():
    """Over 40,000 characters: the first 20,000 and the last 20,000, joined by a space;
    the middle is never read."""
    head, middle, tail = "alpha " * 3400, "middleword " * 2000, "omega " * 3400  # 20,400 + 22,000 + 20,400
    words = Words(head + middle + tail)
    assert "middleword" not in words.joined
    # 20,000 = 3,333 * 6 + 2: the first 20,000 characters are 3,333 "alpha " and a cut "al"
    # (two letters: dropped); the last 20,000 are "a " (dropped) and 3,333 "omega ".
    assert (words.joined.count("alpha"), words.joined.count("omega"), words.count) == (3333, 3333, 6666)
    assert Words("alpha " * 6000).count == 6000  # 36,000 characters: read whole
    # Exactly 40,000 characters are read whole: no cut through the word at the 20,000th.
    exact = ("wordy " * 7000)[:40_000]
    assert len(exact) == 40_000 and Words(exact).words == exact.split()


A = "alpha beta gamma delta"
B = "alpha beta gamma epsilon"


@pytest.mark.parametrize("a, b, cutoff, expected", [
    # A's bigrams {ab, bg, gd}, B's {ab, bg, ge}: Jaccard 2 / (3 + 3 - 2) = 0.5. Indel on the
    # joined words, 22 and 24 characters: the longest common subsequence is "alpha beta gamma "
    # (17) + "el" from "delta"/"epsilon" (2) = 19, so 1 - (22 + 24 - 2 * 19) / 46 = 38 / 46.
    pytest.param(A, B, 0.0, 38 / 46, id="ratio-wins-over-jaccard"),
    pytest.param(A, B, 0.8, 38 / 46, id="ratio-clears-the-cutoff"),
    pytest.param(A, B, 0.9, 0.0, id="below-the-cutoff-is-zero"),
    pytest.param(A, A, 0.85, 1.0, id="same-text"),
    # No bigram in one of them: Jaccard 0; "alpha" vs "alpha beta gamma delta": LCS 5 of 5 + 22,
    # 1 - (5 + 22 - 10) / 27 = 10 / 27.
    pytest.param("alpha", A, 0.0, 10 / 27, id="one-side-without-bigrams"),
])
def test_similarity_by_hand(a, b, cutoff, expected):
    assert similarity(Words(a), Words(b), cutoff) == pytest.approx(expected)


@pytest.mark.parametrize("a, b, expected", [
    # Bigrams {12, 23, 34, 45} vs {51, 12, 23, 34}: 3 shared of 5, Jaccard 0.6. Indel of the two
    # 23-character texts: LCS "one two three four" (18), 1 - (46 - 36) / 46 = 36 / 46 = 0.7826.
    pytest.param("one two three four five", "five one two three four", 36 / 46, id="rotated-ratio-wins"),
    # "abc bcd cde xyz" vs "xyz abc bcd cde": bigrams {ab, bc, cx} vs {xa, ab, bc}: 2 of 4, 0.5;
    # Indel: LCS "abc bcd cde" (11) of 15 and 15: 1 - (30 - 22) / 30 = 22 / 30 = 0.7333.
    pytest.param("abc bcd cde xyz", "xyz abc bcd cde", 22 / 30, id="moved-word"),
])
def test_reordered_words_by_hand(a, b, expected):
    assert similarity(Words(a), Words(b)) == pytest.approx(expected)


# Forty distinct content words; the second text replaces word 20 with a word of the same
# length that shares no letter with it.
WORDS = [f"word{i:02d}" for i in range(40)]
FIRST = " ".join(WORDS)
SECOND = " ".join("zzzzzz" if i == 20 else w for i, w in enumerate(WORDS))
# Bigrams: 39 each; the two that hold word 20 differ: 37 shared, union 39 + 39 - 37 = 41,
# Jaccard 37 / 41 = 0.9024. Indel: 279 characters each, all but the 6 replaced ones in common
# (z is in no other word), so 1 - (279 + 279 - 2 * 273) / 558 = 546 / 558 = 0.9785.
JACCARD, RATIO = 37 / 41, 546 / 558


def test_the_fast_verdict_and_the_full_value():
    """At a cutoff the Jaccard clears, the verdict can stop at the Jaccard; without a cutoff the
    value is the max of both."""
    first, second = Words(FIRST), Words(SECOND)
    assert similarity(first, second, 0.85) >= 0.85
    assert similarity(first, second) == pytest.approx(RATIO)
    assert RATIO > JACCARD > 0.85


def test_a_near_duplicate_finding_reports_the_larger_of_jaccard_and_ratio():
    """The design card: a near-duplicate finding's similarity is max(bigram Jaccard, sequence
    ratio), 0.9785 here, not the 0.9024 of the Jaccard that was enough to call the pair alike."""
    report = detect_loops(agent(llm(FIRST), llm(SECOND)))
    (finding,) = report.findings
    assert (finding.pattern, finding.similarity) == ("reasoning_stagnation", round(RATIO, 4))


def test_a_repeated_reply_reports_the_larger_of_jaccard_and_ratio():
    """The same for replies with only the user's turns between them: both pairs are (FIRST,
    SECOND), whose Jaccard 0.9024 clears the reply threshold 0.6; the reported value is 0.9785."""
    from loopmetric import read_chat_messages

    turns = ["Help me.", FIRST, "please try again.", SECOND, "please, once more.", FIRST]
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(turns)]
    (finding,) = [f for f in detect_loops(read_chat_messages(messages)).findings if f.pattern == "repeated_reply"]
    assert finding.similarity == round(RATIO, 4)


@pytest.mark.parametrize(("text", "only"), [
    pytest.param("alpha beta", True, id="words-and-a-space"),
    pytest.param("plan_b x_y", True, id="underscores"),
    pytest.param("XX", True, id="letters-alone"),
    pytest.param("a-b", False, id="a-hyphen"),
    pytest.param(" ", False, id="a-space-alone-holds-no-word"),
    pytest.param("", False, id="empty"),
    pytest.param("café crème", True, id="non-ascii-words"),
    pytest.param("café-crème", False, id="non-ascii-with-a-hyphen"),
    pytest.param("naïve_plan b", True, id="non-ascii-with-an-underscore"),
])
def test_only_words_and_spaces_chooses_the_fast_split(text, only):
    """Whether a text holds only word characters and spaces (then `str.split` finds its words): ASCII
    checked as bytes, the rest as text, both as `text.replace(" ", "").replace("_", "").isalnum()`."""
    assert _only_words_and_spaces(text) is only
    assert text.replace(" ", "").replace("_", "").isalnum() is only

