"""Text similarity for reasoning stagnation: the larger of bigram Jaccard over
stop-word-filtered words and rapidfuzz's normalized Indel ratio of those words."""

from __future__ import annotations

import re
from itertools import filterfalse, pairwise
from typing import Optional

from rapidfuzz.distance import Indel

__all__ = ["STOP_WORDS", "Words", "content_words", "similarity"]

# Words and agent boilerplate that make unrelated outputs look alike.
STOP_WORDS = frozenset(
    "the a an is are was were i will now based on information provided to of in and that this "
    "with for it my next step going so do be have has not but as or from at by about above below "
    "up its let me we you your our can should would could then there here which what".split()
)
_CONTENT_WORD = re.compile(r"\w{3,}")  # words of 1-2 letters never count
_IS_STOP_WORD = STOP_WORDS.__contains__
# Indel is quadratic in length: an output longer than this is compared on its first
# and last halves of it (exact repeats are still found on the whole text by fingerprint).
_MAX_CHARS = 40_000


class Words:
    """The content words of one output, with their bigrams, computed once.

    The hot path of a long trace: tokenizing and filtering run in C (`str.split`,
    or the regex and `filterfalse` with a set's `__contains__` where a text has
    more than word characters and spaces).
    """

    __slots__ = ("words", "bigrams", "count", "_joined")

    def __init__(self, normalized: str) -> None:
        if len(normalized) > _MAX_CHARS:  # huge outputs: their head and tail stand for them
            normalized = normalized[:_MAX_CHARS // 2] + " " + normalized[-_MAX_CHARS // 2:]
        if _only_words_and_spaces(normalized):
            # Only word characters between the spaces (most outputs once normalized): the
            # words of 3+ characters are what the regex finds, and splitting is faster.
            words = [word for word in filterfalse(_IS_STOP_WORD, normalized.split()) if len(word) > 2]
        else:
            words = list(filterfalse(_IS_STOP_WORD, _CONTENT_WORD.findall(normalized)))
        self.words = words
        self.count = len(words)
        self.bigrams = set(pairwise(words))
        self._joined: Optional[str] = None

    @property
    def joined(self) -> str:
        """The content words, space-joined (for the Indel ratio: built when first compared so, since
        the Jaccard of the bigrams settles most comparisons)."""
        if self._joined is None:
            self._joined = " ".join(self.words)
        return self._joined


def _only_words_and_spaces(text: str) -> bool:
    """Whether `text` holds only word characters and spaces (and one of them); ASCII text is
    checked as bytes, with spaces and "_" deleted in one C pass (5x faster than two `str.replace`)."""
    if text.isascii():
        return text.encode("ascii").translate(None, b" _").isalnum()
    return text.replace(" ", "").replace("_", "").isalnum()


def content_words(normalized: str) -> Words:
    return Words(normalized)


def similarity(a: Words, b: Words, cutoff: float = 0.0) -> float:
    """max(bigram Jaccard, Indel ratio) in [0, 1]; 0.0 when below `cutoff`."""
    jaccard = 0.0
    if a.bigrams and b.bigrams:
        shared = len(a.bigrams & b.bigrams)  # the union's size follows: no union set is built
        union = len(a.bigrams) + len(b.bigrams) - shared
        jaccard = shared / union if union else 0.0
        if jaccard >= cutoff and cutoff > 0:
            return jaccard
    ratio = Indel.normalized_similarity(a.joined, b.joined, score_cutoff=cutoff or None)
    best = max(jaccard, ratio)
    return best if best >= cutoff else 0.0
