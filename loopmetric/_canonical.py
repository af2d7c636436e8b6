"""Canonical forms: one string per value, whatever shape the trace recorded it in.

* `canonical_json` turns any value (dicts, lists, JSON strings, pydantic models,
  dataclasses, sets, bytes, cyclic or 100,000-deep structures) into compact JSON
  with sorted keys at every depth. It never calls `repr`/`str` of a foreign
  object (that would run the trace's own code): objects are read through
  `vars()` and named by their class.
* `canonical_args` also parses arguments recorded as JSON strings.
* `mask_volatile` hides values that change on every call without meaning
  progress (UUIDs, timestamps, long hex ids, framework call ids, memory
  addresses) and keeps ordinary numbers.
* `normalize_text` folds case and whitespace of LLM text.
"""

from __future__ import annotations

import enum
import json
import json.encoder
import math
import re
import threading
from collections.abc import Mapping
from typing import Any, Callable, Iterable, NamedTuple, Optional, Union

from ._deep_json import loads
from ._memo import per_text

__all__ = [
    "as_mapping",
    "canonical_args",
    "canonical_json",
    "mask_error",
    "mask_volatile",
    "normalize_text",
    "plain_object",
]

_SEPARATORS = (",", ":")
_PRIMITIVES = (str, int, float, bool, type(None))


def plain_object(obj: Any) -> Any:
    """A JSON-friendly stand-in for a non-JSON object, without running its code.

    Enums become their value, bytes their text, pydantic models and plain
    objects their field dict (tagged with the class name), anything else the
    class name alone.
    """
    if isinstance(obj, enum.Enum):
        value = obj.value
        return value if isinstance(value, _PRIMITIVES) else obj.name
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj).decode("utf-8", errors="replace")
    if isinstance(obj, (set, frozenset)):
        return sorted(canonical_json(item) for item in obj)
    fields = _object_fields(obj)
    if fields is not None:
        return {"__class__": type(obj).__name__, **fields}
    return f"<{type(obj).__name__}>"


def _object_fields(obj: Any) -> dict[str, Any] | None:
    try:
        fields = vars(obj)
    except TypeError:
        slots = getattr(type(obj), "__slots__", None)
        if not slots or isinstance(slots, str):
            return None
        fields = {name: obj.__getattribute__(name) for name in slots if hasattr(obj, name)}
    if not isinstance(fields, Mapping):
        return None
    return {str(k): v for k, v in fields.items() if not str(k).startswith("_")}


def as_mapping(obj: Any) -> Mapping[str, Any] | None:
    """The fields of a dict, pydantic model or plain object; None for anything else."""
    kind = type(obj)
    if kind is dict:  # the common cases first, without an abstract-class check
        return obj
    if kind is str or kind is list:
        return None
    if isinstance(obj, Mapping):
        return obj
    if isinstance(obj, _PRIMITIVES) or isinstance(obj, (list, tuple, set, frozenset, bytes)):
        return None
    return _object_fields(obj)


def _default(obj: Any) -> Any:
    return plain_object(obj)


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys at every depth; total and deterministic."""
    if type(value) is str:
        return _encode_string(value)
    if type(value) is dict and len(value) == 1:  # (many tool arguments: one key, a plain value)
        flat = _flat_object(value)
        if flat is not None:
            return flat
    try:
        encode = _ENCODERS.encode
    except AttributeError:
        encode = _ENCODERS.encode = _new_encoder()
    try:
        return "".join(encode(value, 0))
    except (TypeError, ValueError, RecursionError):
        # Mixed key types, cycles, or nesting deeper than the C encoder allows.
        _ENCODERS.encode = _new_encoder()  # its cycle markers may hold what the error left
        return _encode_iteratively(value)


def _flat_object(value: dict) -> Optional[str]:
    """`canonical_json` of a dict of one text key whose value is text, a whole number, a boolean or
    null, as the encoder writes it (the same string encoder, `int.__repr__`), without its set-up
    (0.7 of the time); None for any other dict. (With two keys or more, sorting them here costs more
    than the encoder's set-up saves.)"""
    if len(value) != 1:
        return None
    (key, item), = value.items()
    if type(key) is not str:
        return None
    kind = type(item)
    if kind is str:
        return f"{{{_encode_string(key)}:{_encode_string(item)}}}"
    if kind is int:
        return f"{{{_encode_string(key)}:{int.__repr__(item)}}}"
    if kind is bool:
        return f"{{{_encode_string(key)}:{'true' if item else 'false'}}}"
    if item is None:
        return f"{{{_encode_string(key)}:null}}"
    return None


# One encoder per thread, built once (json.dumps with options, and JSONEncoder.encode,
# build a new one on every call); the C encoder itself where there is one.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=_SEPARATORS, ensure_ascii=False, default=_default)
_ENCODERS = threading.local()
_encode_string = json.encoder.encode_basestring


def _new_encoder() -> Callable[[Any, int], Any]:
    make = getattr(json.encoder, "c_make_encoder", None)  # the C encoder (CPython always has it)
    if make is None:  # pragma: no cover
        return lambda value, _: (_ENCODER.encode(value),)
    return make({}, _default, _encode_string, None, _SEPARATORS[1], _SEPARATORS[0],
                                       True, False, True)


def _key(k: Any) -> str:
    if isinstance(k, str):
        return k
    if isinstance(k, _PRIMITIVES):
        return json.dumps(k)
    return canonical_json(k)


def _encode_scalar(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(str(value))
    return json.dumps(value, ensure_ascii=False)


def _encode_iteratively(root: Any) -> str:
    """The same output as the fast path, built with an explicit stack.

    A container met again on its own path is written as "<cycle>".
    """
    out: list[str] = []
    on_path: set[int] = set()
    # Stack items: (True, text) emit text; (False, value) encode value;
    # (None, id) leave a container.
    stack: list[tuple[bool | None, Any]] = [(False, root)]
    while stack:
        kind, item = stack.pop()
        if kind is True:
            out.append(item)
            continue
        if kind is None:
            on_path.discard(item)
            continue
        value = item
        if isinstance(value, _PRIMITIVES):
            out.append(_encode_scalar(value))
            continue
        if isinstance(value, (Mapping, list, tuple)):
            ident = id(value)
            if ident in on_path:
                out.append('"<cycle>"')
                continue
            on_path.add(ident)
            stack.append((None, ident))
            if isinstance(value, Mapping):
                try:
                    pairs = sorted(((_key(k), v) for k, v in value.items()), key=lambda kv: kv[0])
                except Exception:  # a mapping whose items() fails
                    pairs = []
                stack.append((True, "}"))
                for index in range(len(pairs) - 1, -1, -1):
                    key, child = pairs[index]
                    stack.append((False, child))
                    stack.append((True, ("," if index else "") + json.dumps(key, ensure_ascii=False) + ":"))
                stack.append((True, "{"))
            else:
                stack.append((True, "]"))
                for index in range(len(value) - 1, -1, -1):
                    stack.append((False, value[index]))
                    if index:
                        stack.append((True, ","))
                stack.append((True, "["))
            continue
        stack.append((False, plain_object(value)))
    return "".join(out)


_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def canonical_args(args: Any) -> str:
    """Canonical JSON of tool arguments; a JSON string is parsed first.

    Memory addresses (in the reprs some tracers store) are masked: they differ
    between runs and never tell two calls apart.
    """
    text = _canonical_args(args)
    return _ADDRESS.sub("0x*", text) if "0x" in text else text


def _canonical_args(args: Any) -> str:
    if type(args) is dict:  # (most arguments: no text to parse)
        return canonical_json(args)
    if isinstance(args, (bytes, bytearray)):
        args = bytes(args).decode("utf-8", errors="replace")
    if isinstance(args, str):
        stripped = args.strip()
        if stripped[:1] in ("{", "[") :
            try:
                args = loads(stripped)
            except ValueError:
                return json.dumps(stripped, ensure_ascii=False)
        else:
            return json.dumps(stripped, ensure_ascii=False)
    if args is None:
        return "{}"
    return canonical_json(args)


# Values that change on every call without meaning progress.
_VOLATILE_KEYS = (
    "id|_id|uuid|guid|tool_call_id|call_id|run_id|trace_id|span_id|request_id|"
    "message_id|response_id|parent_id|created|created_at|updated_at|timestamp|"
    "time|ts|date|datetime|elapsed|elapsed_ms|duration|duration_ms|latency|"
    "latency_ms|took|took_ms|system_fingerprint|etag|nonce"
)
_VOLATILE_KEY_VALUE = re.compile(
    r'"(' + _VOLATILE_KEYS + r')":("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)',
    re.IGNORECASE,
)
_VOLATILE = re.compile(
    "|".join(
        (
            r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
            r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?",
            r"\b0x[0-9a-fA-F]{4,}\b",
            r"\b(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{16,}\b",
            r"\b(?:call|toolu|chatcmpl|msg|run|lc_run|req|resp|span|trace|item|fc|tool_call)"
            r"[-_]+(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]+",
        )
    )
)


# Necessary conditions for a `_VOLATILE` match, several times cheaper than the
# alternation itself: most results contain no id at all and skip it.
_HEX16 = re.compile(r"[0-9a-fA-F]{16}")
# (`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-|\d{4}-\d\d-\d\d`, written to begin with its dash: sre then skips
# to each dash at C speed instead of trying the pattern at every position)
_DASHED = re.compile(r"-(?:(?<=[0-9a-fA-F]{8}-)(?=[0-9a-fA-F]{4}-)|(?<=\d{4}-)(?=\d\d-\d\d))")
_ID_PREFIX = re.compile(r"(?:call|toolu|chatcmpl|msg|run|req|resp|span|trace|item|fc)[-_]")


# `_HEX16` on an ASCII text by one table lookup per byte (a hex digit becomes "h", any other byte "."),
# then a search for 16 "h" in a row: the pattern begins with a class, so sre tries it at every
# position, several times slower on the results every call returns.
_HEX_BYTES = bytes(0x68 if 48 <= byte <= 57 or 65 <= byte <= 70 or 97 <= byte <= 102 else 0x2E for byte in range(256))
_HEX_RUN = b"h" * 16


_HEX_TABLE_FROM = 48  # characters from which the table is faster than the pattern
_HEX_TABLE_CHARS = 1_000_000  # (a longer text is searched by the pattern: no copy of it made)


def _has_hex16(text: str) -> bool:
    """Whether `text` holds 16 hex digits in a row (`_HEX16.search(text)`)."""
    if len(text) < _HEX_TABLE_FROM:  # (a short text, a span label: the pattern costs less than two copies)
        return len(text) >= 16 and _HEX16.search(text) is not None
    if len(text) <= _HEX_TABLE_CHARS and text.isascii():
        return _HEX_RUN in text.encode("ascii").translate(_HEX_BYTES)
    return _HEX16.search(text) is not None


def _may_be_volatile(text: str) -> bool:
    dashed = "-" in text
    return ((dashed and _DASHED.search(text) is not None) or "0x" in text
            or _has_hex16(text)
            or ((dashed or "_" in text) and _ID_PREFIX.search(text) is not None))


_ONCE_FROM = 2_048  # characters from which a text is masked once per distinct text (`_memo`)


def mask_volatile(text: str) -> str:
    """Hide ids, timestamps and addresses; keep ordinary numbers."""
    # A short text is masked again: that costs less than looking it up (most results, most labels).
    return _mask_volatile_once(text) if len(text) >= _ONCE_FROM else _mask_volatile(text)


def _mask_volatile(text: str) -> str:
    # (searched first: most texts hold no such key, and `sub` with a template costs more than a search)
    if "\"" in text and _VOLATILE_KEY_VALUE.search(text) is not None:
        text = _VOLATILE_KEY_VALUE.sub(r'"\1":"*"', text)
    if not _may_be_volatile(text):
        return text
    return _sub_at_starts(_VOLATILE, "*", text, _VOLATILE_STARTS) if len(text) >= _LONG else _VOLATILE.sub("*", text)


_mask_volatile_once = per_text(_mask_volatile)


_DIGITS = re.compile(r"\d+")


@per_text
def mask_error(text: str) -> str:
    """An error text with every number and every id-like token masked ("line 17871" == "line 17886",
    "request 8f3a9c2b1d4e" == "request a71c02ffe913")."""
    return _DIGITS.sub("#", mask_ids(mask_volatile(text)))


# A token that reads as a generated id, not a word or a code: 8 or more letters and digits that
# alternate at least three times, written in hex ("8f3a9c2b1d4e") or in both cases of letters
# ("Xk7pQ2mN9vR4"). "python311", "sha256sum" or "utf8mb4" are words; a product code in capitals
# and digits ("B09S5ZZ4MC") names a thing, it is content.
_ID_CANDIDATE = re.compile(r"\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{8,}\b")
_ALTERNATION = re.compile(r"[A-Za-z]+|\d+")
_HEX_ID = re.compile(r"[0-9a-f]+|[0-9A-F]+")


def _id_or_word(match: re.Match) -> str:
    token = match.group(0)
    if len(_ALTERNATION.findall(token)) < 4:
        return token
    generated = _HEX_ID.fullmatch(token) is not None or (not token.isupper() and not token.islower())
    return "*" if generated else token


def mask_ids(text: str) -> str:
    """`text` with generated ids (letters and digits alternating, 8+ characters, hex or mixed case) masked."""
    return _ID_CANDIDATE.sub(_id_or_word, text) if any(c.isdigit() for c in text) else text




def normalize_text(text: str) -> str:
    """Case and whitespace folded (str.split: 3x faster than a regex on long outputs)."""
    return " ".join(text.split()).casefold()


# -- volatile tokens in result texts (`mask_result`) ------------------------------------------
# What changes from one identical call to the next without telling the agent anything:
# request / trace / correlation ids and tokens named as such, clocks (times of day, epoch
# seconds, elapsed durations), attempt counters and short hex ids. Applied on top of
# `mask_volatile` to compare two results of the *same* call: a number standing alone is
# kept (a page, an amount, a count is content).
_NAMED_TOKEN = re.compile(
    r"\b((?:(?:x-)?(?:request|req|trace|span|correlation|corr|session|transaction|txn|invocation|execution|"
    r"event|log|message|msg|idempotency)[ _-]?(?:id|token|key|tag|no|number)s?|nonce|etag)\b"
    r"""(?:\s*(?:is|was|=|:|#)\s*|\s+)["'(\[]?)([\w.:/+=-]*\d[\w.:/+=-]*|[A-Za-z0-9+/=_-]{16,})""",
    re.IGNORECASE,
)
_CLOCK = re.compile(
    r"\b\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s*[AaPp]\.?[Mm]\.?)?\b|\b1[5-9]\d{8}(?:\d{3})?(?:\.\d+)?\b"
    r"|\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+\d{1,2}\s+[a-z]{3,9}\s+\d{4}\b",
    re.IGNORECASE,
)
_DURATION = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?\s*(?:ms|msecs?|milliseconds?|us|µs|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?)\b"
    r"|\b(?:elapsed|took|uptime|waited|duration|latency|runtime)\b\W{0,3}\d+(?:\.\d+)?",
    re.IGNORECASE,
)
_ATTEMPT = re.compile(
    r"\b(?:attempt|try|retry|retries|tries|trial|round|iteration|poll)\s*(?:no\.?|number|#)?\s*\d+"
    r"(?:\s*(?:/|of)\s*\d+)?|\b\d+(?:st|nd|rd|th)\s+(?:attempt|try|retry|trial|time)\b"
    r"|\b(?:attempts?|retries|tries)\s*(?:left|remaining|so far|made|used)?\W{0,3}\d+",
    re.IGNORECASE,
)
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)?", re.IGNORECASE)
# The number of the turn in the label a harness opens a result with ("Observation 3:", "Output 2:",
# "[Step 4]"): it counts the run's steps, it tells nothing about the result.
_TURN_LABEL = re.compile(r"^(\W{0,3}[A-Za-z][A-Za-z_-]{0,30}(?:[ \t][A-Za-z][A-Za-z_-]{0,30})?[ \t]*#?)\d{1,4}"
                         r"(?=[ \t]*[:.)\]](?!\d))")
_SHORT_HEX = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b"
                        r"|\b(?=[0-9A-F]*\d)(?=[0-9A-F]*[A-F])[0-9A-F]{8,}\b")


@per_text
def mask_result(text: str) -> str:
    """A result text with every volatile token hidden (`mask_volatile`, then request and
    trace ids or tokens named as such, clocks, elapsed durations, attempt counters and hex
    ids of 8+ characters, the turn number of a label the result opens with): two results of one
    call that differ only there are the same."""
    text = mask_volatile(text)
    if len(text) >= _LONG:
        return _mask_long_result(text)
    if not any(c.isdigit() for c in text):
        return _NAMED_TOKEN.sub(r"\1*", text) if _may_name_token(text) else text
    text = _TURN_LABEL.sub(r"\1#", text, count=1)
    text = _NAMED_TOKEN.sub(r"\1*", text)
    text = _CLOCK.sub("*", text)
    text = _ATTEMPT.sub(lambda m: _ORDINAL.sub("#", m.group(0)), text)
    text = _DURATION.sub(lambda m: _DIGITS.sub("#", m.group(0)), text)
    return mask_ids(_SHORT_HEX.sub("*", text))


_TOKEN_WORDS = re.compile(r"(?:request|req|trace|span|correlation|corr|session|transaction|txn|invocation|execution|"
                          r"event|log|message|msg|idempotency|nonce|etag)", re.IGNORECASE)


def _may_name_token(text: str) -> bool:
    return _TOKEN_WORDS.search(text) is not None


# -- long texts: each pattern tried only where a match can begin -------------------------------
# `Pattern.sub` tries its pattern at every position of the text, and none of the patterns above
# begins with a literal or a character set, which sre would skip to at C speed: on a long text
# (a log of megabytes) each pass costs a second. Instead, each is tried (`Pattern.match`, the
# very attempt `sub` makes at a position: lookbehinds and `\b` see the whole text) only at the
# positions its scans find. A scan begins with a literal or a character set and finds every
# position where a match of the pattern can begin, and some more; trying the pattern at each in
# order, leftmost first, and going on after each match, is `Pattern.sub`, byte for byte.
_LONG = 200  # characters from which scanning for starts pays (the result is the same either way)

# A scan: a pattern whose matches are found with `finditer`, and where before each match the
# masked pattern may begin: a fixed distance, or a function of the text and the match's position
# that walks back over what lies between (a number of any length before its unit), -1 for nowhere.
# Each scan consumes its first character only (the rest it looks at), so `finditer` meets every
# position, or a run whose every start it needs (a literal, a dash). A scan that begins with a
# literal (":", "1") is found at C speed; one that begins with a class is tried at every character
# of the class (every digit of a log: the scans below begin with rarer characters where they can).
# On an ASCII text a scan may name its candidates instead: every position where it can match,
# found by `str.find` of a word or of a run in a byte table (C speed, where a scan that begins
# with a class is tried at each of its characters: every s, t, r of a text), each then tried with
# the scan's `match`. A scan matches one character, so the positions it matches at are those
# `finditer` finds, and a superset tried one by one finds them all.
_Back = Callable[[str, int], int]


class _Scan(NamedTuple):
    """A scan (see above)."""

    pattern: "re.Pattern[str]"
    backs: tuple[Union[int, _Back], ...]
    # on an ASCII text: positions that include every one where `pattern` matches
    candidates: Optional[Callable[[str], Iterable[int]]] = None


def _with_non_ascii(chars: str) -> str:
    r"""A character class of the ASCII `chars` and of every character outside ASCII, written as the
    ASCII characters it leaves out (`[^...]`): the same characters as `[chars\u0080-\U0010ffff]`,
    which sre takes about 4 ms to compile (every process that imports loopmetric would pay it)."""
    ranges: list[list[int]] = []  # the ASCII codes left out, consecutive ones as one range
    for code in range(128):
        if chr(code) in chars:
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    runs = [f"\\x{low:02x}" if low == high else f"\\x{low:02x}-\\x{high:02x}" for low, high in ranges]
    return f"[^{''.join(runs)}]" if runs else "[\\x00-\\U0010ffff]"


def _words_at_word_start(words: str, *, ignore_case: bool, tail: str = "") -> _Scan:
    r"""A scan for where one of the words of an alternation (`"call|run|req"`) begins a word (`\b`
    before it), followed by `tail`."""
    rests: dict[str, list[str]] = {}
    for word in words.split("|"):
        rests.setdefault(word[0].lower() if ignore_case else word[0], []).append(re.escape(word[1:]))
    firsts = "".join(sorted(rests))
    alternatives = "|".join(f"(?<={re.escape(first)})(?=(?:{'|'.join(rest)}){tail})" for first, rest in rests.items())
    # (outside ASCII, characters match ASCII letters case-insensitively, ſ, K, ı, İ: a scan for a word
    # in any case takes them all as possible first letters and lets `(?i:...)` decide)
    first_class = _with_non_ascii(firsts + firsts.upper()) if ignore_case else f"[{re.escape(firsts)}]"
    return _Scan(re.compile(f"{first_class}(?<!\\w.)"
                            + (f"(?i:{alternatives})" if ignore_case else f"(?:{alternatives})")), (0,),
                 _words_found(words, ignore_case=ignore_case))


def _words_found(words: str, *, ignore_case: bool) -> Callable[[str], Iterable[int]]:
    """Where one of the words occurs in an ASCII text (in any case: in ASCII, `lower` is what
    `(?i:...)` compares), a word that begins with another not looked for again."""
    forms = sorted({word.lower() if ignore_case else word for word in words.split("|")})
    forms = [word for word in forms if not any(word != other and word.startswith(other) for other in forms)]

    def found(text: str) -> Iterable[int]:
        view = text.lower() if ignore_case else text
        return [at for word in forms for at in _found_at(view, word)]

    return found


def _found_at(haystack: Any, needle: Any, shift: int = 0) -> list[int]:
    """Every position where `needle` occurs in `haystack` (a str, or bytes), overlaps included, plus
    `shift`, in order."""
    at_each = []
    at = haystack.find(needle)
    while at >= 0:
        at_each.append(at + shift)
        at = haystack.find(needle, at + 1)
    return at_each


def _hex_runs_found(length: int) -> Callable[[str], Iterable[int]]:
    """Where a run of `length` hex digits begins after a character that is not one, or at the
    start, in an ASCII text (by the byte table of `_has_hex16`)."""
    run = b"h" * length
    after_other = b"." + run

    def found(text: str) -> Iterable[int]:
        table = text.encode("ascii").translate(_HEX_BYTES)
        return ([0] if table.startswith(run) else []) + _found_at(table, after_other, 1)

    return found


_HEX = "0-9a-fA-F"
_VOLATILE_STARTS: tuple[_Scan, ...] = (
    _Scan(re.compile(rf"-(?<=[{_HEX}]{{8}}-)(?=[{_HEX}]{{4}}-[{_HEX}]{{4}}-[{_HEX}]{{4}}-[{_HEX}]{{12}})"),  # UUID
          (8,)),
    _Scan(re.compile(r"-(?<=\d{4}-)(?=\d{2}-\d{2}[T ]\d{2}:\d{2})"), (4,)),  # date and time
    _Scan(re.compile(rf"0x(?=[{_HEX}]{{4}})"), (0,)),  # address
    _Scan(re.compile(rf"[{_HEX}](?<!\w[{_HEX}])(?=[{_HEX}]{{15}})"), (0,), _hex_runs_found(16)),  # long hex id
    _words_at_word_start("call|toolu|chatcmpl|msg|run|lc_run|req|resp|span|trace|item|fc|tool_call",
                         ignore_case=False, tail="[-_]"),
)
_NAMED_TOKEN_STARTS: tuple[_Scan, ...] = (
    _words_at_word_start("x-|request|req|trace|span|correlation|corr|session|transaction|txn|invocation|execution|"
                         "event|log|message|msg|idempotency|nonce|etag", ignore_case=True),
)
_CLOCK_STARTS: tuple[_Scan, ...] = (
    _Scan(re.compile(r":(?<=(?<!\w)\d:)(?=\d\d)"), (1,)),  # 1:05, found at its colon
    _Scan(re.compile(r":(?<=(?<!\w)\d\d:)(?=\d\d)"), (2,)),  # 12:05
    _Scan(re.compile(r"1(?<!\w1)(?=[5-9]\d{8})"), (0,)),  # epoch seconds
    _words_at_word_start("mon|tue|wed|thu|fri|sat|sun", ignore_case=True, tail=r"[a-z]*,?\s+\d"),
)


def _ordinal_before(text: str, at: int) -> int:
    """Where `\\d+(?:st|nd|rd|th)\\s+` that ends where a word begins (`at`) may begin: the first of
    the digits two characters before the whitespace ("2nd try": the 2), or -1 (no whitespace, no
    digit there). (`\\s` is `str.isspace`, `\\d` `str.isdecimal`; a letter matches one letter.)"""
    end = at
    while end and text[end - 1].isspace():
        end -= 1
    if end == at or end < 3 or not text[end - 3].isdecimal():
        return -1
    start = end - 3
    while start and text[start - 1].isdecimal():
        start -= 1
    return start


def _number_before(text: str, at: int) -> int:
    """Where `\\d+(?:\\.\\d+)?` that ends at `at` may begin: the first of the digits before, or of the
    digits before their decimal point ("1.5s": the 1; a number right after a point cannot begin a
    match), or -1."""
    start = at
    while start and text[start - 1].isdecimal():
        start -= 1
    if start == at:
        return -1
    if start >= 2 and text[start - 1] == "." and text[start - 2].isdecimal():
        start -= 2
        while start and text[start - 1].isdecimal():
            start -= 1
    return start


_UNIT = _with_non_ascii("munshMUNSH")  # the first letter of a unit, in any case (µ is outside ASCII)
# An ASCII text's digits as "d", spaces (`\s`) as " ", a unit's first letters as "u", the rest ".".
_UNIT_BYTES = bytes(ord("d") if chr(byte).isdecimal() else ord(" ") if chr(byte).isspace()
                    else ord("u") if chr(byte) in "munshMUNSH" else ord(".") for byte in range(256))


def _units_after_digits(text: str) -> Iterable[int]:
    """Where a unit's first letter follows a digit, or a space follows one and is followed by more
    spaces or a unit's first letter, in an ASCII text."""
    table = text.encode("ascii").translate(_UNIT_BYTES)
    # (the character after the digit: the unit, or the space)
    return [at for needle in (b"du", b"d u", b"d  ") for at in _found_at(table, needle, 1)]


_ATTEMPT_STARTS: tuple[_Scan, ...] = (
    # the words, and the number of "2nd try" before the word ("time" only there)
    _words_at_word_start("attempt|try|retry|retries|tries|trial|round|iteration|poll|time",
                         ignore_case=True)._replace(backs=(0, _ordinal_before)),
)
_DURATION_STARTS: tuple[_Scan, ...] = (
    # 12ms, 1.5s: found at the unit; 12 ms: at the space after the number
    _Scan(re.compile(rf"{_UNIT}(?<=\d.)|\s(?<=\d\s)(?=\s*{_UNIT})"), (_number_before,), _units_after_digits),
    _words_at_word_start("elapsed|took|uptime|waited|duration|latency|runtime", ignore_case=True),
)
_SHORT_HEX_STARTS: tuple[_Scan, ...] = (
    _Scan(re.compile(rf"[{_HEX}](?<!\w[{_HEX}])(?=[{_HEX}]{{7}})"), (0,), _hex_runs_found(8)),
)


def _starts(text: str, scans: tuple[_Scan, ...]) -> list[int]:
    """Every position of `text` where a match may begin, by the scans, in order."""
    found: set[int] = set()
    ascii_text = text.isascii()
    for pattern, backs, candidates in scans:
        if candidates is not None and ascii_text:
            match_at = pattern.match
            hits = [at for at in candidates(text) if match_at(text, at) is not None]
        else:
            hits = [match.start() for match in pattern.finditer(text)]
        for back in backs:
            found.update([hit - back for hit in hits] if isinstance(back, int) else [back(text, hit) for hit in hits])
    return sorted(start for start in found if start >= 0)  # (a hit too near the start for its offset: none)


def _sub_at_starts(pattern: "re.Pattern[str]", replacement: Any, text: str, scans: tuple[_Scan, ...]) -> str:
    """`pattern.sub(replacement, text)`, the pattern tried only where the scans say a match may
    begin (see above)."""
    starts = _starts(text, scans)
    if not starts:
        return text
    match_at = pattern.match
    pieces: list[str] = []
    done = 0  # where the text after the last match begins
    template = isinstance(replacement, str) and "\\" in replacement
    for start in starts:
        if start < done:
            continue
        found = match_at(text, start)
        if found is None:
            continue
        end = found.end()
        if end == start:  # an empty match (none of these patterns has one): `sub`'s own rules
            return pattern.sub(replacement, text)
        pieces.append(text[done:start])
        pieces.append(found.expand(replacement) if template
                      else replacement if isinstance(replacement, str) else replacement(found))
        done = end
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


def _mask_long_result(text: str) -> str:
    """`mask_result` of a long text whose volatile tokens are masked, each pass at its scans' starts."""
    text = _TURN_LABEL.sub(r"\1#", text, count=1)  # (anchored at the start: one attempt)
    text = _sub_at_starts(_NAMED_TOKEN, r"\1*", text, _NAMED_TOKEN_STARTS)
    text = _sub_at_starts(_CLOCK, "*", text, _CLOCK_STARTS)
    text = _sub_at_starts(_ATTEMPT, _mask_ordinals, text, _ATTEMPT_STARTS)
    text = _sub_at_starts(_DURATION, _mask_digits, text, _DURATION_STARTS)
    return _sub_at_starts(_SHORT_HEX, "*", text, _SHORT_HEX_STARTS)


def _mask_ordinals(match: "re.Match[str]") -> str:
    return _ORDINAL.sub("#", match.group(0))


def _mask_digits(match: "re.Match[str]") -> str:
    return _DIGITS.sub("#", match.group(0))
