"""Progress means new information: when a repeated step is a loop and when it is not.

A step is *news* when it tells the agent something it did not know:

* an input (a user turn) whose text the run had not seen;
* a call the run had not made, unless it failed the way an earlier call failed
  (`failure_kind`: the same failure, whatever argument it names), returned
  exactly what the previous call of the same tool returned, or showed a page
  seen before: no line that had not been shown, and its lines (numbers masked)
  all together in one earlier result. A page never seen as a whole is a new
  place even when each of its lines was shown elsewhere (an item opened from
  the list that named it);
* a call made before whose result has a line none of that call's earlier
  results had. A result's lines are compared with whitespace folded and
  numbers masked (percentages kept), so a result that differs only by
  counters, line numbers, sizes or timestamps, or by more of the same content
  (a file that grows by the same pasted block), is not news.

LLM outputs are never news: a model's own words do not tell it anything.

`Progress` walks the steps once and records, for every tool call, how many
news steps came before and after it. Two calls have "nothing new between"
them when those counts match. Detectors build their runs from that.

It also records the reply each call belongs to: the model output it follows with only calls
between. The calls one reply makes at once are one attempt (`Progress.attempts`): the agent saw
none of their results before making the next. A call that follows no recorded model output (a
recording of tool spans alone), or follows the other side's words, is an attempt of its own.
"""

from __future__ import annotations

import re
from operator import attrgetter, le
from typing import Optional

from .._deep_json import loads

from .._memo import per_repeated_text
from .._model import LlmOutput, ToolCall, Trace
from ._stances import proposed, stems

__all__ = ["Progress", "acknowledges", "carries_content", "changes_told", "failure_kind", "fails", "info_units",
           "is_note", "says_change", "says_little"]

# Numbers standing alone, except percentages ("running 30%" -> "running 70%" is a job
# moving on); digits inside a word ("list1", "v2") are part of the word.
# (written to begin with its digit, the lookbehind after it: sre then skips to each digit at C speed
# instead of trying the lookbehind at every position; the same matches as `(?<![\w.])\d+...`)
_COUNTER = re.compile(r"\d(?<![\w.]\d)\d*(?:\.\d+)?(?![\w%]|\.\d|\s*%)")
_MAX_LINES = 5_000
_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")
_ASCII_LETTER = re.compile(r"[A-Za-z]")
_MASKED_RUN = re.compile(r"\*(?:[\W_]*\*)+")
_KIND_CHARS = 300
_HEAD_CHARS = 300
_SUBSTANTIAL_WORDS = 8  # words a result needs before two equal results mean the same attempt
# Results that report a failure in words, whatever the tool (checked on the head of the text).
_FAILURE_WORDS = re.compile(
    r"\b(?:no (?:matches|match|results?|such)|not (?:found|available|allowed|supported|exist|recognized)|"
    r"does(?:n't| not) exist|could(?:n't| not)|can(?:'t|not)|unable to|invalid|incorrect|wrong|malformed|"
    r"failed|failure|error|denied|refused|unknown|usage:|too many|nothing happens|timed out)\b",
    re.IGNORECASE,
)


# The first word of each `_FAILURE_WORDS` alternative: an ASCII head none of whose
# words is one of these cannot match, and one with a word of `_FAILURE_WORD` does
# (a word standing alone), so the pattern itself runs only on the rest.
_FAILURE_WORD = frozenset(b"invalid incorrect wrong malformed failed failure error denied refused unknown".split())
_FAILURE_LEADS = frozenset(b"no not does doesn could couldn can cannot unable usage too nothing timed".split())
# ASCII text's words (`\w+` under re.ASCII), lowercased, by one table lookup per byte:
# letters folded to lower case, digits and "_" kept, every other byte a space.
_WORD_BYTES = bytes(
    byte + 32 if 65 <= byte <= 90 else byte if (97 <= byte <= 122 or 48 <= byte <= 57 or byte == 95) else 32
    for byte in range(256)
)


def _ascii_words(text: str) -> list[bytes]:
    r"""The words of an ASCII `text`, lowercased: what `re.findall(r"\w+", text.lower(), re.ASCII)`
    finds, as bytes."""
    return text.encode("ascii").translate(_WORD_BYTES).split()


def _reports_failure(head: str) -> bool:
    """Whether a result's head reports a failure in words (`_FAILURE_WORDS`)."""
    if head.isascii():
        words = head.encode("ascii").translate(_WORD_BYTES).split()  # (`_ascii_words`, written out)
        if not _FAILURE_WORD.isdisjoint(words):
            return True
        if _FAILURE_LEADS.isdisjoint(words):
            return False
    return _FAILURE_WORDS.search(head) is not None


# A failure said on a result's last lines (where a test run or a build sums up): the words of
# `_FAILURE_WORDS`, "fail" and its forms, or a line that opens with an exception's name and a colon
# (`ValueError: ...`, `java.lang.NullPointerException: ...`); "0 errors", "no failures" say the opposite.
_FAILS = re.compile(
    r"(?<!\b0 )(?<!\bno )\b(?:fail(?:s|ed|ing|ures?)?|errors?)\b|^[\w.]*(?:Error|Exception)\b:",
    re.IGNORECASE | re.MULTILINE,
)
_LAST_LINES = 2


def fails(result: Optional[str]) -> bool:
    """Whether a result reports a failure at its head (`failure_kind` reads it) or in its last lines."""
    if not result:
        return False
    if _reports_failure(result[:_HEAD_CHARS]):
        return True
    last = [line for line in result[-_HEAD_CHARS:].splitlines() if line.strip()][-_LAST_LINES:]
    return any(_reports_failure(line) or _FAILS.search(line) is not None for line in last)


def info_units(text: Optional[str]) -> frozenset[str]:
    """What a result tells the agent: its distinct lines, whitespace folded. In a result
    of several lines, a line that differs only in a number is a counter, a size, a
    line number or a clock ("26 lines total", "3 steps left", "8 seconds ago"): numbers
    are masked there (percentages kept). A one-line result keeps its numbers: there
    the number is the content ("orders 20-29", "return 3")."""
    if not text:
        return frozenset()
    if "\n" not in text and "\r" not in text:
        folded = " ".join(text.split())
        return frozenset((text if folded == text else folded,))  # no copy of a result already folded
    return _read_lines(text)[0]


@per_repeated_text
def _read_lines(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """A result of several lines read once: its units (`info_units`) and its lines as shown (`_lines`).
    Kept from a result's second sighting on (`per_repeated_text`): every line of every distinct
    result, kept while a long trace is scored, held more memory than the trace."""
    lines: set[str] = set()
    units: set[str] = set()
    for line in text.splitlines()[:_MAX_LINES]:
        line = line.rstrip()  # spacing inside a line is kept: in code it is content
        if line:
            lines.add(line)
            # (a line with no decimal digit has no counter: its digits found by the pattern, in C, not
            # character by character; a digit `\d` does not match, as a superscript, masks nothing either)
            units.add(_COUNTER.sub("#", line) if _DIGIT.search(line) is not None else line)
    return frozenset(units), frozenset(lines)


def _lines(text: Optional[str]) -> frozenset[str]:
    """A result's distinct lines as shown (numbers kept, trailing space dropped)."""
    if not text:
        return frozenset()
    lines = text.splitlines()
    if len(lines) == 1:  # most results
        line = lines[0]
        return frozenset((line.rstrip(),)) if line and not line.isspace() else frozenset()
    return frozenset(line.rstrip() for line in lines[:_MAX_LINES] if line.strip())


def _units_and_lines(text: Optional[str]) -> tuple[frozenset[str], frozenset[str]]:
    """`info_units(text)` and `_lines(text)` in one reading of the text."""
    if not text:
        return _NOTHING, _NOTHING
    if "\n" not in text and "\r" not in text:  # (`info_units` of one line, written out)
        folded = " ".join(text.split())
        if folded == text:
            # A line already folded (no run of spaces, no space at either end, no other line break:
            # `str.split` splits at those too) is shown as it is: one set serves as both.
            units = frozenset((text,))
            return units, units
        return frozenset((folded,)), _lines(text)
    return _read_lines(text)


_NOTHING: frozenset[str] = frozenset()
_KIND = attrgetter("kind")


def _folded(lines: frozenset[str]) -> set[str]:
    """Lines with their spacing folded."""
    return {" ".join(line.split()) for line in lines}


def _wordy(token: str) -> bool:
    """A token that reads as a word: no escape in it, 70% of it letters ("Saved", "file.txt")."""
    return "\\" not in token and 10 * sum(c.isalpha() for c in token) >= 7 * len(token)


def says_little(result: Optional[str]) -> bool:
    """An empty result or a short acknowledgement in words ("OK", "File written",
    "edited"), one line of words at most (markup and a return code around it aside); not
    data (a list, an object, a number, null, escaped bytes: most of its tokens not words,
    `b'\\x1c\\x01'`; two lines of words: a listing, lines found)."""
    if result is None:
        return True
    tokens = result.split(None, _SUBSTANTIAL_WORDS)  # stops at the ninth word: most results are long
    if len(tokens) > _SUBSTANTIAL_WORDS:
        return False
    stripped = result.strip()
    if not stripped:
        return True
    if stripped[:1] in "[{\"" or stripped in ("null", "None", "false", "true"):
        return False
    if "\n" in stripped and sum(1 for line in _MARKUP.sub("", stripped).splitlines() if _LETTER.search(line)) > 1:
        return False  # lines of words: a listing, not an acknowledgement (markup and a return code are none)
    if "\\" in stripped and 2 * sum(map(_wordy, tokens)) < len(tokens):
        return False  # escaped bytes, not words
    if stripped.isascii():
        return _ASCII_LETTER.search(stripped) is not None
    return any(c.isalpha() for c in stripped)


_MARKUP = re.compile(r"<[^<>\n]*>")
_LETTER = re.compile(r"[^\W\d_]")
_NOTE_WORDS = 12  # words of prose in a call's only argument that make it a note to self
_ACK_WORDS = 3  # words of an acknowledgement ("OK", "Done.", "File written.")


def acknowledges(result: Optional[str]) -> bool:
    """An empty result or an acknowledgement of at most three words ("OK", "Done.")."""
    return result is None or (says_little(result) and _within_ack_words(result))


def _within_ack_words(result: Optional[str]) -> bool:
    """No result, or one of at most `_ACK_WORDS` words."""
    return result is None or len(result.split(None, _ACK_WORDS)) <= _ACK_WORDS


def is_note(args: str) -> bool:
    """Whether a call's arguments are one line of prose and nothing else (a "think" or
    "note" call: `{"thought": "The error means the total is wrong, so I ..."}`): it
    writes the agent's own words down and changes nothing a failing call depends on."""
    if "\\n" in args or len(args) > 4_000 or args.count(" ") < _NOTE_WORDS:
        return False  # prose of more than _NOTE_WORDS words has at least that many spaces
    try:
        value = loads(args)
    except ValueError:
        return False
    if isinstance(value, dict):
        if len(value) != 1:
            return False
        value = next(iter(value.values()))
    return isinstance(value, str) and len(value.split(None, _NOTE_WORDS)) > _NOTE_WORDS and "=" not in value


def _words(text: str) -> set[str]:
    if text.isascii():  # (`_WORD`'s words lowercased, by one table lookup per byte: `_ascii_words`)
        return set(text.encode("ascii").translate(_WORD_BYTES, b"'").decode("ascii").split())
    return set(_WORD.findall(text.replace("'", "").lower()))


def _argument_words(args: str) -> set[str]:
    """The words of an argument list's values (not its keys)."""
    try:
        stack = [loads(args)]
    except ValueError:
        return _words(args)
    words: set[str] = set()
    while stack and len(words) < 10_000:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif value is not None:
            words |= _words(str(value))
    return words


def carries_content(args: str) -> bool:
    """Whether an argument list carries multi-line text (code, a file's content)."""
    if "\\n" not in args:
        return False
    try:
        stack = [loads(args)]
    except ValueError:
        return True
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and "\n" in value.strip():
            return True
    return False


# A result saying, in words, that the action changed something (checked on its head); "is" or "are"
# before the word describes a state ("the apps are installed", "Wi-Fi is enabled"), not a change.
_REPORTS_CHANGE = re.compile(
    r"\b(?:is|are) now\b|\bsuccessful(?:ly)?\b|\bsucceeded\b|\bset to\b|"
    r"(?<!\bis )(?<!\bare )\b(?:updated|changed|created|saved|written|deleted|removed|added|enabled|disabled|"
    r"reset|restarted|restarting|applied|installed|toggled|moved|renamed|modified|replaced|inserted|cleared|edited|"
    r"turned (?:on|off))\b",
    re.IGNORECASE,
)
_CHANGE_HEAD = 300
# The words of `_REPORTS_CHANGE`, one of which stands alone in whatever it matches: an ASCII head none
# of whose words is one of these says no change, and the pattern (slow: it looks behind at every
# word) runs only on the rest.
_CHANGE_WORDS = frozenset(
    b"now successful successfully succeeded set updated changed created saved written deleted removed added "
    b"enabled disabled reset restarted restarting applied installed toggled moved renamed modified replaced "
    b"inserted cleared edited turned".split()
)


def says_change(result: Optional[str]) -> list[str]:
    """The lines of a result's head that say a change in words (`_REPORTS_CHANGE`), stripped."""
    head = (result or "")[:_CHANGE_HEAD]
    if head.isascii() and _CHANGE_WORDS.isdisjoint(_ascii_words(head)):
        return []
    if _REPORTS_CHANGE.search(head) is None:  # a line that says a change: the head says one
        return []
    return [line.strip() for line in head.splitlines() if _REPORTS_CHANGE.search(line) is not None]


def changes_told(trace: Trace) -> frozenset[int]:
    """The steps of the other side's turns that say they made a change the agent's reply just
    before proposed, and had not said before: news, as a fact is. The turn says it in the words a
    tool's result would (`says_change`: "I turned Wi-Fi Calling off", "it is now enabled", "I
    reset the settings"); what changed is the stems of the clause that says it, and the reply
    proposed it when one of its sentences that says no "no" (`stances.proposed`) names one of
    them. The agent answers a world that moved as it asked, as after a tool that reported a
    change, whoever recorded it (a person's own tool calls are not in every format). A change
    said again ("I already restarted it": no stem an earlier change had not), or one nobody
    proposed ("I was sure I added it when I booked", to a reply saying it cannot be added), is
    none."""
    changed: set[str] = set()
    found = set()
    last: Optional[str] = None  # the agent's last reply
    asked: Optional[frozenset[str]] = None  # what it proposed, read once a turn after it says a change
    for step in trace.steps:
        if isinstance(step, LlmOutput) and step.has_text:
            last, asked = step.text, None
        elif step.kind == "input" and last is not None and (lines := says_change(step.text)):
            if asked is None:
                asked = proposed(last)
            if not asked:
                continue
            # What changed is told by the clause that says it ("I restarted my phone", not "but it
            # still fails"): its stems, against those of the changes told before.
            reported = stems(" ".join(clause for line in lines for clause in _CLAUSE.split(line)
                                      if says_change(clause)))
            if not reported <= changed and not reported.isdisjoint(asked):
                found.add(step.step)
            changed |= reported
    return frozenset(found)


_CLAUSE = re.compile(r"[,;.!?:]\s|\b(?:and|but|then)\b", re.IGNORECASE)


_SENTENCE_END = re.compile(r"\s(?<=[.!?]\s)")  # (a space after . ! or ?, found from the space: at C speed)


def failure_kind(call: ToolCall, *, first_sentence: bool = False) -> Optional[str]:
    """What kind of failure a call met, whatever it failed on: the first sentence and
    the last line of the error (or of a result that reports a failure in words),
    with numbers and the call's own argument words masked ("No file named 'a.txt'"
    and "No file named 'b.txt'" are one kind); with `first_sentence`, the first sentence
    alone (what failed, not the detail under it). None for a call that did not fail."""
    kinds = _failure_kinds(call)
    return kinds[1] if first_sentence else kinds[0]


_NOT_FAILED = (None, None)


def _failure_kinds(call: ToolCall) -> tuple[Optional[str], Optional[str]]:
    """`failure_kind(call)` and `failure_kind(call, first_sentence=True)`, in one reading of the result."""
    if call.result is None:
        return _NOT_FAILED
    if not call.error and not _reports_failure(call.result[:_HEAD_CHARS]):
        return _NOT_FAILED
    return _kinds_of_failure(call.result, call.args)


def _kinds_of_failure(result: str, args: str) -> tuple[str, str]:
    """`_failure_kinds` of a call known to have failed (an error, or a result that reports a failure): its
    `result` and its `args`."""
    lines = [line for line in result[:_KIND_CHARS * 20].splitlines() if line.strip()]
    if not lines:
        return "error", "error"
    # A sentence that ends after _KIND_CHARS is cut there anyway: only that much of the line is searched.
    first = lines[0].strip()[:_KIND_CHARS + 1]
    if "." in first or "!" in first or "?" in first:  # (no sentence end without one: most lines are one sentence)
        first = _SENTENCE_END.split(first, 1)[0]
    head = first[:_KIND_CHARS]
    tail = lines[-1].strip()[:_KIND_CHARS] if len(lines) > 1 else ""
    own = _argument_words(args)
    parts = []
    for text in (head, tail):
        text = text.replace("'", "")
        # Most name none of their arguments (ASCII lowercased first: the same words, found once).
        # (an ASCII text's words by one table lookup per byte, `_ascii_words`, as `_WORD` finds them lowercased)
        if not own.isdisjoint(text.encode("ascii").translate(_WORD_BYTES).decode("ascii").split() if text.isascii()
                              else map(str.lower, _WORD.findall(text))):
            text = _WORD.sub(lambda m: "*" if m.group(0).lower() in own else m.group(0), text)
        if _DIGIT.search(text) is not None:
            text = _COUNTER.sub("#", text)
        if "*" in text:
            text = _MASKED_RUN.sub("*", text)
        parts.append(" ".join(text.split()))
    return " / ".join(part for part in parts if part), parts[0]


class Progress:
    """News counts around every tool call of a trace (see the module docstring)."""

    __slots__ = ("calls", "before", "after", "kinds", "first_kinds", "failing", "same_as_previous", "_changes",
                 "_starts", "replies", "told", "_little", "longest_outcome_run", "_runs", "first_made", "_steps",
                 "_shows_new")

    def __init__(self, trace: Trace) -> None:
        self.calls: list[ToolCall] = []
        self.before: list[int] = []  # news steps before each call
        self.after: list[int] = []  # ... and after it (one more when the call itself is news)
        self.kinds: list[Optional[str]] = []
        self.first_kinds: list[Optional[str]] = []  # ... by the first sentence alone (`failure_kind`)
        self.failing: list[bool] = []  # whether each call failed: an error, or a failure reported in words
        # `changes` and `starts` (see them): counted the first time a rule asks (most traces: none does)
        self._changes: Optional[list[int]] = None
        self._starts: Optional[list[int]] = None
        self._steps = trace.steps
        self._shows_new: list[bool] = []  # whether each call showed a line no result had shown before it
        # The reply each call belongs to (`attempts`): the number of the model output it follows with
        # only calls between, or a number of its own (below zero) when no model output comes before it
        # (a recording of tool spans alone) or the other side spoke since.
        self.replies: list[int] = []
        self._little: list[Optional[bool]] = []  # says_little of each result, when computed (`says_little`)
        # Whether each call returned exactly what the previous call of its tool returned.
        self.same_as_previous: list[bool] = []
        # Whether each call is the first of its name and arguments (no rule builds a set of every call again).
        self.first_made: list[bool] = []
        # Every line any result has shown, counters masked (`seen_units`) and as shown, numbers kept (`seen_lines`);
        # a result of one line already folded (most results) is its own unit, its own line and its own page: it
        # goes to `seen_alone` only, one entry for the three (a long trace held three tables of every result).
        seen_units: set[str] = set()
        seen_lines: set[str] = set()
        seen_alone: set[str] = set()
        made: set[str] = set()
        seen_inputs: set[str] = set()
        seen_failures: set[str] = set()
        # Every other result as a whole (its lines, counters masked): a page of one line by that line (a text
        # `seen_units` holds already), a longer one by its hash: equal pages always match, and two different
        # ones share a 64-bit hash with odds of about one in 2**64 (no copy of every page is kept). A line is
        # never equal to a hash, so a page of one line is seen whole when it is in this set or in `seen_alone`.
        seen_wholes: set[object] = set()
        last_of_tool: dict[str, int] = {}
        last_units: dict[str, frozenset[str]] = {}  # of the last call of each tool (only they are compared)
        outcome_run: dict[str, int] = {}  # how many calls of each tool in a row (its own calls) returned one outcome
        longest = 0
        news = 0
        # The other side's turns that said they made a change the agent asked for (`changes_told`), read
        # once here for every rule (the conversation rules read them from the evidence too).
        self.told = changes_told(trace) if "input" in map(_KIND, trace.steps) else frozenset()  # (kinds read in C)
        reply = -1  # the model output the next call follows (-1: none since the last input, or none yet)
        # (the lists' appends bound once: this loop runs for every call of every trace)
        calls, add_call = self.calls, self.calls.append
        add_before, add_after, add_kind = self.before.append, self.after.append, self.kinds.append
        add_first_kind, add_failing = self.first_kinds.append, self.failing.append
        add_same, add_little, add_shows_new = self.same_as_previous.append, self._little.append, self._shows_new.append
        add_reply, add_first_made = self.replies.append, self.first_made.append
        for step in trace.steps:
            if step.kind == "input":
                reply = -1
                if step.fingerprint not in seen_inputs:
                    seen_inputs.add(step.fingerprint)
                    news += 1
                continue
            if step.kind != "tool":
                if step.kind == "llm":
                    reply = step.step
                continue
            index = len(calls)
            add_call(step)
            add_reply(reply if reply >= 0 else -1 - index)
            add_before(news)
            result = step.result
            if result is None or not step.error and not _reports_failure(result[:_HEAD_CHARS]):
                kind = first_kind = None  # (`_failure_kinds`' own first test, written out: most calls did not fail)
            else:
                kind, first_kind = _kinds_of_failure(result, step.args)
            add_kind(kind)
            add_first_kind(first_kind)
            add_failing(step.error or kind is not None)
            name = step.name
            previous = last_of_tool.get(name)
            alone: Optional[str] = None  # the result, when it is one line already folded (`seen_alone`)
            # (one line already folded, most results: `_units_and_lines`' first answer, written out; a result with
            # a line break is never folded, and is not split into words to learn it: a long log read again and
            # again was split whole at every read)
            if result and "\n" not in result and result == " ".join(result.split()):
                units = shown = frozenset((result,))
                alone = result
                whole: object = result
            else:
                units, shown = _units_and_lines(result)
                whole = next(iter(units)) if len(units) == 1 else hash(units)
            if previous is None:
                repeats_outcome = same = False
            else:  # the same result (outcome or lines), and one of substance
                repeats_outcome = step.outcome == calls[previous].outcome
                same = (repeats_outcome or units == last_units[name]) and self._substantial(previous, index)
            add_same(same)
            made_call = step.call
            first_time = made_call not in made
            add_first_made(first_time)
            # a line no result had shown (in `seen_lines` or `seen_alone`)
            if alone is not None:
                unseen = alone not in seen_alone and alone not in seen_lines
            else:
                unseen = not (shown <= seen_lines or seen_alone and shown - seen_alone <= seen_lines)
            add_little(None)  # (`says_little` of its result: read when first asked)
            if kind is not None and kind in seen_failures:  # failed as an earlier call failed
                is_news = False
            elif first_time:  # a new action: news, unless it only shows again a page shown before
                # (what the result says is read last: only for a page shown before as a whole)
                is_news = not same and (unseen or whole not in seen_wholes and whole not in seen_alone
                                        or self.says_little(index))
            elif alone is not None:  # a line no result had shown, counters masked (in `seen_units` or `seen_alone`)
                is_news = alone not in seen_alone and alone not in seen_units
            else:
                is_news = not (units <= seen_units or seen_alone and units - seen_alone <= seen_units)
            add_shows_new(first_time and kind is None and unseen)
            made.add(made_call)
            if alone is not None:
                seen_alone.add(alone)
            else:
                seen_lines |= shown
                seen_units |= units
                seen_wholes.add(whole)
            if kind is not None:
                seen_failures.add(kind)
            if is_news:
                news += 1
            add_after(news)
            if repeats_outcome:
                repeats = outcome_run[name] = outcome_run[name] + 1
                if repeats > longest:
                    longest = repeats
            else:
                outcome_run[name] = 1
            last_of_tool[name] = index
            last_units[name] = units
        # The most calls of one tool in a row (each the next of its tool, whatever came between)
        # that returned one outcome: no run of one outcome, within a window or not, is longer.
        self.longest_outcome_run = longest or min(len(self.calls), 1)
        self._runs: dict[tuple[str, Optional[int]], list[tuple[str, list[int]]]] = {}
        if False in self.first_made:
            # A call made again: the rule of identical repeats will ask for the changes. Counted now, while
            # the model is built, not later beside what the rules hold (a 50 MB trace peaked 6 MB higher),
            # and once the sets of all that was seen are let go (their tables are not held beside its lists).
            del seen_units, seen_lines, seen_alone, made, seen_wholes
            self._count_changes()

    @property
    def changes(self) -> list[int]:
        """New actions so far that reported little (likely changes), after each call."""
        if self._changes is None:
            self._count_changes()
        return self._changes  # type: ignore[return-value]

    @property
    def starts(self) -> list[int]:
        """The changes as each call starts: those before it (`changes`), with the other side's turns
        that said they made a change the agent had asked for (`changes_told`) when no call between had
        made one."""
        if self._starts is None:
            self._count_changes()
        return self._starts  # type: ignore[return-value]

    def _count_changes(self) -> None:
        """`changes` and `starts`, in one walk of the steps (asked only by the rules that compare a
        call with an earlier one of the same failure or answer: most traces never ask)."""
        calls, kinds, first_made, told = self.calls, self.kinds, self.first_made, self.told
        changes_after: list[int] = []
        starts: list[int] = []
        changes = 0
        replied = 0  # the changes made when the model last wrote
        said_so_far: Optional[set[str]] = None  # lines that said a change so far, once a call says one
        for step in self._steps:
            if step.kind == "input":
                if step.step in told and changes == replied:  # (said in words, not made by a call recorded)
                    changes += 1
                continue
            if step.kind != "tool":
                if step.kind == "llm":
                    replied = changes
                continue
            index = len(starts)
            starts.append(changes)
            result = step.result
            said: Optional[list[str]] = None  # `says_change` of this call, once asked
            if kinds[index] is None and first_made[index] and not step.error and not is_note(step.args):
                # (`acknowledges`, with `says_little` known once; `_within_ack_words` written out)
                if (self.says_little(index) and (result is None or len(result.split(None, _ACK_WORDS)) <= _ACK_WORDS)
                        or carries_content(step.args)):
                    changes += 1  # a new action acknowledged in a few words, or writing text: it likely changed it
                elif said := says_change(result):
                    if said_so_far is None:  # built once a call says a change, from the calls before it
                        said_so_far = {line for earlier in calls[:index]
                                       for line in says_change(earlier.result)}
                    # A line saying a change seen before is a display seen again (a status bar), unless the
                    # result also shows a line no result had shown (the same file edited again, shown back).
                    if not said_so_far.issuperset(said) or self._shows_new[index]:
                        changes += 1
            if said_so_far is not None:
                said_so_far.update(says_change(result) if said is None else said)
            changes_after.append(changes)
        self._changes, self._starts = changes_after, starts

    def _substantial(self, a: int, b: int) -> bool:
        """Whether calls `a` and `b`, which returned the same result (the same outcome, or the
        same lines: see `info_units`), returned one of some substance: a short acknowledgement
        ("OK", "edited") returned by different calls says nothing about whether they were the
        same attempt, and a result not recorded is unknown."""
        first, second = self.calls[a].result, self.calls[b].result
        if first is None or second is None:
            return False
        return len(second.split(None, _SUBSTANTIAL_WORDS)) > _SUBSTANTIAL_WORDS

    def alike_in_counters_only(self, earlier: int, later: int) -> bool:
        """Whether two results equal once their numbers are masked (`same_as_previous`) share
        little but the lines whose numbers changed: a harness's countdown ("You have 3 steps
        left") or a clock ticking under an otherwise empty output. What the two share as shown
        (spacing folded) must have substance to mean the same attempt; a counter says nothing
        about the call."""
        first, second = self.calls[earlier].result, self.calls[later].result
        if first == second or first is None or second is None:
            return False
        shared = _folded(_lines(first)) & _folded(_lines(second))
        return sum(len(line.split(None, _SUBSTANTIAL_WORDS)) for line in shared) <= _SUBSTANTIAL_WORDS

    def says_little(self, index: int) -> bool:
        """`says_little` of call `index`'s result, computed once."""
        little = self._little[index]
        if little is None:
            little = self._little[index] = says_little(self.calls[index].result)
        return little

    def attempts(self, members: list[int]) -> int:
        """How many attempts calls `members` are: the calls one reply makes at once are one attempt
        (the agent saw none of their results before making the next); a call that follows no model
        output is an attempt of its own."""
        replies = self.replies
        return len({replies[index] for index in members})

    def in_replies(self, members: list[int]) -> str:
        """What a finding over calls `members` says of the replies that made them: nothing when each
        call is an attempt of its own, else how many replies made them (one sentence, to end a message)."""
        attempts = self.attempts(members)
        if attempts == len(members):
            return ""
        return (f" The {len(members)} calls were made in {attempts} replies: the calls one reply makes at once "
                f"are one attempt, the agent seeing none of their results before making the next.")

    def quiet_between(self, earlier: int, later: int) -> bool:
        """Nothing new happened after call `earlier` and before call `later`."""
        return self.after[earlier] == self.before[later]

    def unchanged_between(self, earlier: int, later: int) -> bool:
        """No new action that reported little (a silent edit, an "OK") came between two calls:
        whatever the agent looked at meanwhile, it did not change anything that an identical
        failing call could now see differently."""
        return self.starts[later] == self.changes[earlier]

    def is_news(self, index: int) -> bool:
        return self.after[index] > self.before[index]

    def runs(self, key: str, window: Optional[int]) -> list[tuple[str, list[int]]]:
        """Runs of two or more calls sharing `key` ("call": name and arguments; "tool":
        the tool's name), each following the previous one of its key within `window`
        calls, with nothing new between them and nothing new in it; in order of start.
        Computed once for each key and window (the lists are shared: not to be changed)."""
        cached = self._runs.get((key, window))
        if cached is not None:
            return cached
        # (most traces: every call made once, so no run of one call; or every call news, so none joins a run)
        if (key == "call" and False not in self.first_made) or not any(map(le, self.after, self.before)):
            self._runs[(key, window)] = []
            return self._runs[(key, window)]
        current: dict[str, list[int]] = {}
        runs: list[tuple[str, list[int]]] = []
        before, after = self.before, self.after  # (`is_news` and `quiet_between`, written out)
        for index, call in enumerate(self.calls):
            group = call.call if key == "call" else call.name
            run = current.get(group)
            if (run is not None and after[index] <= before[index] and after[run[-1]] == before[index]
                    and (window is None or index - run[-1] <= window)):
                run.append(index)
                continue
            if run is not None and len(run) > 1:
                runs.append((group, run))
            current[group] = [index]
        runs.extend((group, run) for group, run in current.items() if len(run) > 1)
        runs.sort(key=lambda item: item[1][0])
        self._runs[(key, window)] = runs
        return runs
