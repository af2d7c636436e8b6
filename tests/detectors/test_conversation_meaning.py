"""Meaning, offline, opt-in: `LoopSettings(semantic=True)` reports a `conversation_loop`
when replies of the same meaning in other words answer the other side turn after turn,
nothing new coming back; off (the default) it changes nothing."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from loopmetric import LoopSettings, detect_loops, read_chat_messages
from loopmetric.detectors import detect_conversation_loops

ROOT = Path(__file__).resolve().parents[2]
TOPICS = (("insurance", "cover", "coverage"), ("booking", "booked", "reservation", "trip"), ("id", "number"),
          ("flight", "seat"))


def embed(texts):
    """A tiny deterministic embedder: one count per topic (stands in for meaning)."""
    return [[sum(word in text.lower().replace(",", " ").split() for word in topic) for topic in TOPICS]
            for text in texts]


REFUSALS = ["Sorry, insurance cannot be added once a trip is booked.",
            "I'm afraid travel cover can't be put on an existing reservation.",
            "Unfortunately our policy does not allow adding insurance after booking.",
            "I understand, but coverage cannot be attached to this reservation now.",
            "Again, insurance is not available for a trip already booked."]
ASKS = ["Could you tell me your reservation number, please?", "May I have the booking id, please?",
        "Please share the reservation number so I can look.", "I still need your booking id to go on.",
        "Without the reservation number I cannot continue."]
PRESS = ["Can you make an exception?", "Please, it matters a lot.", "Is there no other way?", "Please try anyway.",
         "Really nothing?"]

# One meaning for the toy embedder (the booking topic), each asking for another change ...
REMEDY_ASKS = ["Please update the reservation email in the app, then I can look again.",
               "Please reset the booking password, then I can look again.",
               "Please remove the old trip from the booking, then I can look again.",
               "Please add a card to the reservation, then I can look again."]
# ... or for the same change in other words.
UPDATE_ASKS = ["Please update the reservation email in the app, then I can look again.",
               "Could you update the email on your booking in the app? Then I look again.",
               "Kindly update the trip email in the app and I will look again.",
               "Update the email of the reservation in the app, please, and I look once more.",
               "The booking email needs updating in the app; then I can look again."]


def chat(replies, others, tool_after=None) -> list:
    messages = [{"role": "user", "content": "Please add travel insurance to my booking."}]
    for n, (reply, other) in enumerate(zip(replies, others)):
        messages.append({"role": "assistant", "content": reply})
        if tool_after == n:
            messages[-1] = {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "get_reservation", "arguments": "{}"}}]}
            messages += [{"role": "tool", "tool_call_id": "c1", "content": '{"insurance": "no"}'},
                         {"role": "assistant", "content": reply}]
        messages.append({"role": "user", "content": other})
    return messages


ON = LoopSettings(semantic=True, embedder=embed)

# (messages, the conversation loop's replies, whether the words alone see it at default settings)
LOOPS = [
    pytest.param(chat(REFUSALS[:4], PRESS), 4, False, id="the-same-refusal-four-ways"),
    # the words alone see four of the five in a row: each said no again, said nothing new, or answered
    # the other side's plea with none of it ("Really nothing?"), on the chain's subject
    pytest.param(chat(REFUSALS, PRESS), 5, True, id="the-same-refusal-five-ways"),
    pytest.param(chat(ASKS[:4], ["I told you already.", "Why do you need it?", "Just do it.", "Hurry up."]), 4, False,
                 id="the-same-request-re-asked-every-turn"),
    pytest.param(chat(REFUSALS, ["I'm sure I added it when I booked.", "I added it online, I know it.",
                                 "My sister added it to hers.", "I removed nothing."]), 4, False,
                 id="twin-changes-no-reply-proposed-are-no-news"),
]

HEALTHY = [
    pytest.param(chat(REFUSALS[:3], PRESS), id="three-is-not-yet"),
    pytest.param(chat(ASKS[:4], ["It is ABC123.", "Sorry, try XYZ789.", "Or maybe QRS456.", "Last one: LMN321."]),
                 id="each-turn-brings-a-new-fact"),
    pytest.param(chat(REFUSALS[:4], PRESS, tool_after=2), id="a-tool-ran-between"),
    pytest.param(chat(REMEDY_ASKS, ["I updated the reservation email in the app.", "I reset the booking password.",
                                    "I removed the old trip.", "I added a card to the reservation."]),
                 id="each-turn-says-the-change-the-reply-asked-for"),
    pytest.param(chat(["Your flight leaves at nine.", "The seat is by the window.",
                       "Insurance is included.", "Your booking is confirmed."], PRESS),
                 id="different-meanings"),
]


@pytest.mark.parametrize(("messages", "count", "words"), LOOPS)
def test_replies_of_one_meaning_are_a_conversation_loop(messages, count, words):
    trace = read_chat_messages(messages)
    assert [(f.pattern, f.severity, f.count) for f in detect_conversation_loops(trace, ON)] == \
        [("conversation_loop", "severe", count)]
    report = detect_loops(messages, settings=ON)
    assert report.success is False and "conversation_loop" in {f.pattern for f in report.findings}
    assert detect_loops(messages).success is (not words)  # words differ: most word-level patterns miss it


def test_the_same_change_said_every_turn_is_news_the_first_time_only():
    """The twin of a change each turn: the person says again the change it made (the word-level
    rule sees these asks too; the meaning rule counts them alike)."""
    messages = chat(UPDATE_ASKS, ["I updated the reservation email in the app.", "I updated it already!",
                                  "Updated, as I said.", "I updated it.", "Updated!"])
    (finding,) = detect_conversation_loops(read_chat_messages(messages), ON)
    replies = [step.step for step in read_chat_messages(messages).steps if step.kind == "llm"]
    assert (finding.pattern, finding.steps) == ("conversation_loop", tuple(replies[1:]))


@pytest.mark.parametrize("messages", HEALTHY)
def test_healthy_conversations_are_not(messages):
    assert detect_conversation_loops(read_chat_messages(messages), ON) == ()


@pytest.mark.parametrize("messages", [p.values[0] for p in LOOPS] + [p.values[0] for p in HEALTHY])
def test_off_by_default_and_off_changes_nothing(messages):
    assert LoopSettings().semantic is False
    assert detect_loops(messages).to_dict() == detect_loops(messages, semantic=False, embedder=embed).to_dict()


@pytest.mark.parametrize(("kwargs", "message"), [
    pytest.param({"semantic": "yes"}, "Expected argument `semantic` to be a bool, but got 'yes'.", id="semantic"),
    pytest.param({"embedder": "wordllama"}, "Expected argument `embedder` to be None or a callable", id="embedder"),
])
def test_bad_settings_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("`", "`")):
        LoopSettings(**kwargs)


def test_an_embedder_returning_the_wrong_number_of_vectors_is_an_error():
    with pytest.raises(ValueError, match="Expected the embedder to return 5 vectors, but got 1"):
        detect_loops(chat(REFUSALS, PRESS), semantic=True, embedder=lambda texts: [[1.0]])


def test_without_wordllama_the_error_names_the_extra():
    code = ("import sys; sys.modules['wordllama'] = None\n"
            "from loopmetric import detect_loops\n"
            f"messages = {json.dumps(chat(REFUSALS, PRESS))}\n"
            "try:\n    detect_loops(messages, semantic=True)\nexcept ImportError as error:\n    print(error)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert 'pip install "loopmetric[semantic]"' in done.stdout, done.stderr


# -- the default embedder: wordllama's model from its wheel ----------------------------------
REAL = ["I understand your concern, but travel insurance cannot be added to an existing reservation after booking.",
        "Unfortunately, I am unable to add travel insurance to your existing reservation due to policy restrictions.",
        "I understand the importance of insurance for your trip. However, I am unable to add insurance to your "
        "existing reservation.",
        "I understand your frustration, but due to the policies in place I am unable to add travel insurance to "
        "your existing reservation."]
REAL_PRESS = ["Can you please double-check? I really want the insurance.", "Is there anything else you can do?",
              "Please, there must be another way.", "Are you sure there is nothing else?"]


@pytest.fixture
def offline(monkeypatch):
    """wordllama loaded and run with sockets blocked: opening one fails the test."""
    pytest.importorskip("wordllama")

    def no_network(*args, **kwargs):
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)


def test_wordllama_sees_one_refusal_in_four_wordings_without_any_network(offline):
    """Refusals that name the same things are one refusal to words too (`repeated_reply`); meaning
    adds `conversation_loop` over the same replies."""
    messages = chat(REAL, REAL_PRESS)
    found = detect_conversation_loops(read_chat_messages(messages), LoopSettings(semantic=True))
    assert [(f.pattern, f.count) for f in found] == [("conversation_loop", 4)]
    assert [f.pattern for f in detect_loops(messages).findings] == ["repeated_reply"]
    assert [f.pattern for f in detect_loops(messages, semantic=True).findings] == ["repeated_reply"]  # the same steps


def test_wordllama_reports_are_identical_across_processes():
    pytest.importorskip("wordllama")
    code = ("import json, sys\nfrom loopmetric import detect_loops\n"
            "print(json.dumps(detect_loops(json.load(sys.stdin), semantic=True).to_dict(), sort_keys=True))\n")
    data = json.dumps(chat(REFUSALS[:4], PRESS))  # found by meaning alone
    outputs = {subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, text=True, cwd=ROOT,
                              timeout=120, env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout for seed in ("0", "1")}
    assert len(outputs) == 1 and "conversation_loop" in outputs.pop()


def test_command_line_semantic_flag(tmp_path, capsys):
    pytest.importorskip("wordllama")
    from loopmetric.cli import main

    path = tmp_path / "refusals.json"
    path.write_text(json.dumps(chat(REFUSALS[:4], PRESS)))  # the docs' refusals: no key word in common
    assert main(["score", str(path), "--fail-under", "1"]) == 0
    assert main(["score", str(path), "--fail-under", "1", "--semantic"]) == 1
    assert "conversation_loop" in capsys.readouterr().out


# -- refusals: replies that decline, nothing new between -----------------------------------
def conversation(first: str, replies: list, others: list) -> list:
    messages = [{"role": "user", "content": first}]
    for reply, other in zip(replies, others):
        messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": other}]
    return messages


DENVER = "Book me on the earliest flight to Denver, please."
DECLINES = [
    pytest.param(chat(REFUSALS[:4], PRESS), True, id="the-docs-refusal-four-ways-shares-no-key-word"),
    pytest.param(conversation(DENVER, [
        "Flight HAT101 cannot be booked, it is full.", "I'm afraid HAT101 can't be booked: no seats are left.",
        "HAT101 is full, so booking it is not possible.", "There are no seats on HAT101; it cannot be booked."],
        ["Please try again.", "Try once more.", "Can you retry?", "Please, again."]), True,
        id="one-flight-declined-four-ways"),
    pytest.param(conversation("Can you book me a hotel in Rome?", [
        "Sorry, I cannot book hotels, only flights.", "I'm unable to arrange car rentals, I'm afraid.",
        "Pets are not allowed in the cabin on this route.", "I can't change the passenger name on a ticket."],
        ["Then can you rent me a car?", "Can my dog come with me in the cabin?",
         "Can you put my wife's name on the ticket?", "Fine, thank you."]), False,
        id="healthy-different-requests-each-declined"),
    pytest.param(conversation(DENVER, [
        "Flight HAT101 cannot be booked, it is full.", "Flight HAT205 cannot be booked either, it is full.",
        "Flight HAT311 cannot be booked, it is full as well.", "Flight HAT402 cannot be booked, it is also full."],
        ["Try the next one.", "And the next?", "Keep going.", "Any other?"]), False,
        id="healthy-each-decline-names-a-new-flight"),
    pytest.param(conversation("Tell me a story about a fox, a paragraph at a time.", [
        "Once upon a time a fox who cannot sleep lived at the edge of a pine forest.",
        "One morning the fox, unable to rest, followed a strange light down to the river.",
        "By the river sat an old owl who cannot fly any more.",
        "The owl, unable to see, led the fox to a hollow tree full of winter apples."],
        ["continue"] * 4), False, id="healthy-a-story-whose-people-cannot-do-things"),
]


# Found by words alone at the default settings (`repeated_reply`: one flight said no to four ways,
# the same subject each time); the others only by meaning, or by nothing.
BY_WORDS = {"one-flight-declined-four-ways"}


@pytest.mark.parametrize(("messages", "loop"), DECLINES)
def test_the_default_embedder_reads_refusals_by_structure_offline(messages, loop, offline, request):
    by_words = request.node.callspec.id in BY_WORDS
    report = detect_loops(messages, semantic=True)
    assert [f.pattern for f in report.findings] == (["repeated_reply"] if by_words else
                                                    ["conversation_loop"] if loop else [])
    assert detect_loops(messages).success is not by_words


def test_the_docs_refusal_example_runs_as_pasted_with_sockets_blocked(offline):
    """docs/scoring.md's meaning example, the default embedder, no network: it prints what the page says."""
    import contextlib
    import io
    import re

    page = (ROOT / "docs" / "scoring.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"^```python\n(.*?)^```", page, re.M | re.S)
              if "travel insurance" in b and "embedder" not in b]
    assert len(blocks) == 1, "the page has one refusal example run with the default embedder"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "docs/scoring.md", "exec"), {})
    assert out.getvalue().splitlines() == re.findall(r"# prints: (.*)$", blocks[0], re.M) == \
        ["True", "False conversation_loop"]


def test_a_reply_that_tells_a_new_fact_is_progress():
    """The toy embedder sees one meaning in every reply; each names another flight, so none repeats."""
    replies = [f"Flight {code} cannot be booked, it is full." for code in ("HAT101", "HAT205", "HAT311", "HAT402")]
    messages = conversation(DENVER, replies, ["Try the next one.", "And the next?", "Keep going.", "Any other?"])
    assert detect_conversation_loops(read_chat_messages(messages), ON) == ()
    same = conversation(DENVER, [replies[0]] * 4, ["Try the next one.", "And the next?", "Keep going.", "Any other?"])
    assert [f.count for f in detect_conversation_loops(read_chat_messages(same), ON)] == [4]


def turns(*texts: str):
    """A trace of the other side's turns (even places) and replies (odd places), the first step a turn."""
    from loopmetric._model import LlmOutput, Observation, Trace

    return Trace(steps=tuple(Observation(n, "user", f"turn{n}", text=text) if n % 2 == 0 else LlmOutput(n, text)
                             for n, text in enumerate(texts)) + (Observation(len(texts), "user", "last", text="?"),))


@pytest.mark.parametrize(("booking", "count"), [
    pytest.param("QX42X", 5, id="a-fact-told-again-is-no-news-whatever-ends-its-sentence"),
    pytest.param("QX42Y", 0, id="twin-another-booking-is-news"),
])
def test_a_fact_from_the_first_step_named_at_a_sentence_end_is_no_news(booking, count):
    """Step 0 (the other side) gives the booking; replies name it again, once with the sentence's
    period after it, which is not part of it."""
    trace = turns("My booking is QX42X, please add insurance.", REFUSALS[0], PRESS[0], REFUSALS[2], PRESS[1],
                  f"Insurance cannot be added to booking {booking}.", PRESS[2], REFUSALS[3], PRESS[3],
                  f"Coverage cannot be attached to booking {booking}.")
    assert [f.count for f in detect_conversation_loops(trace, ON)] == ([count] if count else [])


def test_two_declines_meet_at_a_lower_cut_off_than_two_replies():
    """Every two replies at cosine 0.5 (reply n: a 1 at n and at the end, so 1 / (sqrt 2 * sqrt 2)): a repeat
    when both decline (0.35), not otherwise (0.75)."""
    def half(texts):
        return [[1.0 if i in (n, len(texts)) else 0.0 for i in range(len(texts) + 1)] for n, _ in enumerate(texts)]

    settings = LoopSettings(semantic=True, embedder=half)
    declining = conversation(DENVER, ["It cannot be booked."] * 2 + ["Booking it is not possible."] * 2, PRESS)
    plain = conversation(DENVER, ["It is full."] * 2 + ["No seats are left."] * 2, PRESS)
    one_plain = conversation(DENVER, ["It cannot be booked."] * 3 + ["No seats are left."], PRESS)
    assert [f.count for f in detect_conversation_loops(read_chat_messages(declining), settings)] == [4]
    assert detect_conversation_loops(read_chat_messages(plain), settings) == ()
    assert detect_conversation_loops(read_chat_messages(one_plain), settings) == ()


# -- instructions to a sub-agent, reworded -------------------------------------------------
from loopmetric.detectors import detect_reworded_instructions  # noqa: E402
from tests._traces import agent, tool  # noqa: E402

SCAN = ["Please open the video at the link and list the times when three bird species are on screen.",
        "Please scan through the video at the link and list when three bird species are on camera.",
        "Open the link, watch the video and tell me the times at which three bird species appear.",
        "Please go through the video at the link and note when three bird species show up together.",
        "Watch the linked video and give the timestamps where three bird species are on camera."]


def bird_embedder(texts):
    topics = (("video",), ("bird", "birds"), ("species",), ("flight", "price"), ("weather",))
    return [[sum(word in text.lower().replace(",", " ").replace(".", " ").split() for word in topic)
             for topic in topics] for text in texts]


def surfer(instructions, name=lambda n: "WebSurfer"):
    return agent(*[tool(name(n), {"instruction": text}, output=f"I scrolled the page ({n * 10}% seen).")
                   for n, text in enumerate(instructions)])


@pytest.mark.parametrize(("trace", "count"), [
    pytest.param(surfer(SCAN), 5, id="one-instruction-five-wordings"),
    pytest.param(surfer(SCAN + SCAN[:2]), 7, id="seven-wordings"),
])
def test_reworded_instructions_are_similar_attempts(trace, count):
    settings = LoopSettings(semantic=True, embedder=bird_embedder)
    from loopmetric import read_deepeval_trace

    found = detect_reworded_instructions(read_deepeval_trace(trace), settings)
    assert [(f.pattern, f.severity, f.count) for f in found] == [("similar_attempts", "severe", count)]
    assert detect_loops(trace).success is True
    assert detect_loops(trace, settings=settings).success is False


@pytest.mark.parametrize("trace", [
    pytest.param(surfer(SCAN[:4]), id="four-is-not-yet"),
    pytest.param(surfer(SCAN, name=lambda n: ["WebSurfer", "FileSurfer"][n % 2]), id="to-different-agents"),
    pytest.param(surfer(["Find the cheapest flight price from Oslo to Rome for next Monday please.",
                         "Check the weather forecast in Rome for next Monday and Tuesday please.",
                         "Find a video of the bird species seen in Rome parks this spring.",
                         "Look up the price of a museum ticket in Rome for next Monday please.",
                         "Find the weather in Oslo for the day of the return flight please."]),
                 id="different-instructions"),
])
def test_different_or_few_instructions_are_not(trace):
    from loopmetric import read_deepeval_trace

    settings = LoopSettings(semantic=True, embedder=bird_embedder)
    assert detect_reworded_instructions(read_deepeval_trace(trace), settings) == ()


# -- what counts as news, what counts as an instruction, what a finding reports ------------
@pytest.mark.parametrize(("messages", "found"), [
    pytest.param(chat(REFUSALS, ["My id is AB123."] * 5), [("conversation_loop", 4)],
                 id="the-same-fact-told-every-turn-is-news-once"),
    pytest.param(chat(REFUSALS, [f"My id is AB12{n}." for n in range(5)]), [],
                 id="twin-a-new-fact-every-turn"),
])
def test_a_fact_told_again_is_not_news(messages, found):
    assert [(f.pattern, f.count) for f in detect_conversation_loops(read_chat_messages(messages), ON)] == found


EIGHT_WORDS = ["Please watch the video and list bird species.", "Watch this video and name the bird species.",
               "Open the video and list every bird species.", "Go through the video listing the bird species.",
               "Check the video and write the bird species."]


@pytest.mark.parametrize(("instructions", "found"), [
    pytest.param(EIGHT_WORDS, [("similar_attempts", 5)], id="eight-words-are-an-instruction"),
    pytest.param([text.replace("the ", "", 1) for text in EIGHT_WORDS], [], id="twin-seven-words-are-not"),
])
def test_an_instruction_is_prose_of_eight_words_or_more(instructions, found):
    from loopmetric import read_deepeval_trace

    assert {len(text.split()) for text in instructions} == {8 if found else 7}
    settings = LoopSettings(semantic=True, embedder=bird_embedder)
    assert [(f.pattern, f.count) for f in detect_reworded_instructions(read_deepeval_trace(surfer(instructions)),
                                                                         settings)] == found


def table_embedder(vectors: dict):
    """An embedder that looks each text up in `vectors` (unlisted texts get their own direction)."""
    return lambda texts: [vectors.get(text, [0.0, 0.0, 0.0, 1.0]) for text in texts]


# The first chain holds one pair at cosine 0.93; the second is all 1.0.
# (Letters, not digits: a reply with a token holding a digit tells a fact, and a new fact is progress.)
FIRST = {f"first {'abcde'[n]}": ([1.0, 0.4, 0.0, 0.0] if n == 1 else [1.0, 0.0, 0.0, 0.0]) for n in range(5)}
SECOND = {f"second {'abcde'[n]}": [0.0, 0.0, 1.0, 0.0] for n in range(5)}


@pytest.mark.parametrize(("texts", "similarities"), [
    pytest.param([*FIRST, "something else entirely", *SECOND], [0.93, 1.0], id="a-chain-after-a-broken-one"),
    pytest.param([*SECOND, "something else entirely", *FIRST], [1.0, 0.93], id="twin-the-other-way-round"),
    pytest.param([*SECOND], [1.0], id="twin-one-chain"),
])
def test_each_reworded_instruction_chain_reports_its_own_similarity(texts, similarities):
    from loopmetric import read_deepeval_trace

    trace = read_deepeval_trace(surfer([f"Please do the following thing for me now: {t}" for t in texts]))
    vectors = {f"Please do the following thing for me now: {t}": v for t, v in {**FIRST, **SECOND}.items()}
    settings = LoopSettings(semantic=True, embedder=table_embedder(vectors))
    assert [f.similarity for f in detect_reworded_instructions(trace, settings)] == similarities


def _two_conversation_chains(first: dict, second: dict) -> list:
    """Five replies pressed five times, a new fact, then five more replies pressed."""
    messages = [{"role": "user", "content": "Please add travel insurance to my booking."}]
    for n, reply in enumerate([*first, *second]):
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "user", "content": "My booking is ZX91Q." if n == len(first) - 1 else PRESS[n % 5]})
    return messages


@pytest.mark.parametrize(("first", "second", "similarities"), [
    pytest.param(FIRST, SECOND, [0.93, 1.0], id="a-chain-after-a-broken-one"),
    pytest.param(SECOND, FIRST, [1.0, 0.93], id="twin-the-other-way-round"),
])
def test_each_conversation_chain_reports_its_own_similarity(first, second, similarities):
    settings = LoopSettings(semantic=True, embedder=table_embedder({**FIRST, **SECOND}))
    trace = read_chat_messages(_two_conversation_chains(first, second))
    assert [f.similarity for f in detect_conversation_loops(trace, settings)] == similarities


def same_vector(texts):
    """Every text means the same: what decides is whether it is an instruction at all."""
    return [[1.0, 0.0] for _ in texts]


COMMANDS = [f"cd /repo && grep -rn 'timeout' src/ | head -{n} && echo done" for n in range(10, 15)]
TITLES = [f"Feng Shui Japanese Wall Art Scroll Hanging Painting Size {n}" for n in range(5)]
PROSE = [f"Please open the page and read the price of item {n}" for n in range(5)]


def plain(words: int, other: int) -> list[str]:
    """Five 10-token texts: `words` plain words, then `other` tokens that are not words (`x=1`)."""
    return [" ".join(["read"] * words + ["x=1"] * other + ["please"] * (10 - words - other)) + f" #{n}"
            for n in range(5)]


def capitals(count: int) -> list[str]:
    """Five 10-token prose texts with `count` capitalised words."""
    return [" ".join(["Read"] * count + ["read"] * (10 - count)) for _ in range(5)]


@pytest.mark.parametrize(("instructions", "count"), [
    pytest.param(PROSE, 5, id="prose-is-an-instruction"),
    pytest.param(COMMANDS, 0, id="twin-a-shell-command-is-not-prose"),
    pytest.param(TITLES, 0, id="twin-a-title-in-title-case-is-not-prose"),
    # 11 tokens each (10 + "#n"): 8 plain words of 11 = 0.73 >= 0.7; 7 of 11 = 0.64 is not.
    pytest.param(plain(8, 2), 5, id="eight-plain-words-of-eleven"),
    pytest.param(plain(7, 3), 0, id="twin-seven-plain-words-of-eleven"),
    # 10 tokens, 7 plain words: exactly 0.7 is prose.
    pytest.param([" ".join(["read"] * 7 + ["x=1"] * 2 + [f"#{n}"]) for n in range(5)], 5,
                 id="exactly-seven-plain-words-of-ten"),
    # 4 capitalised of 10 = 0.4 < 0.5 is prose; 5 of 10 = 0.5 is a title.
    pytest.param(capitals(4), 5, id="four-capitals-of-ten"),
    pytest.param(capitals(5), 0, id="twin-five-capitals-of-ten"),
])
def test_an_instruction_reads_as_a_sentence_not_as_code_or_a_title(instructions, count):
    from loopmetric import read_deepeval_trace

    settings = LoopSettings(semantic=True, embedder=same_vector)
    found = detect_reworded_instructions(read_deepeval_trace(surfer(instructions)), settings)
    assert [f.count for f in found] == ([count] if count else [])


def at_cosine(cosine: float):
    """An embedder giving every two different texts the cosine `cosine` (equal texts: 1.0)."""
    import math

    side = math.sqrt(1 - cosine)
    vectors: dict[str, list[float]] = {}

    def embed(texts):
        for text in texts:  # each new text: a shared axis plus its own
            if text not in vectors:
                vectors[text] = [math.sqrt(cosine)] + [side if i == len(vectors) else 0.0 for i in range(16)]
        return [vectors[text] for text in texts]

    return embed


@pytest.mark.parametrize(("replies", "cosine", "cutoff", "count"), [
    pytest.param(ASKS, 0.76, None, 4, id="cosine-0.76-meets-the-default-0.75"),
    pytest.param(ASKS, 0.74, None, 0, id="twin-cosine-0.74-does-not"),
    pytest.param(ASKS, 0.80, 0.85, 0, id="twin-a-higher-cutoff-for-another-model"),
    pytest.param(ASKS, 0.70, 0.65, 4, id="cosine-0.70-meets-a-lower-0.65"),
    pytest.param(REFUSALS, 0.36, None, 4, id="two-declines-at-0.36-meet-0.35"),
    pytest.param(REFUSALS, 0.34, None, 0, id="twin-two-declines-at-0.34-do-not"),
    pytest.param(REFUSALS, 0.32, 0.30, 4, id="a-reply-cutoff-below-0.35-holds-for-declines-too"),
    pytest.param(REFUSALS, 0.28, 0.30, 0, id="twin-below-that-cutoff"),
])
def test_semantic_threshold_is_the_cosine_from_which_replies_mean_the_same(replies, cosine, cutoff, count):
    """Requests (`ASKS`) repeat from `semantic_threshold`; refusals (`REFUSALS`, each declining) from 0.35."""
    extra = {} if cutoff is None else {"semantic_threshold": cutoff}
    settings = LoopSettings(semantic=True, embedder=at_cosine(cosine), **extra)
    found = detect_conversation_loops(read_chat_messages(chat(replies[:4], PRESS)), settings)
    assert [f.count for f in found] == ([count] if count else [])


@pytest.mark.parametrize(("cosine", "cutoff", "count"), [
    pytest.param(0.92, None, 5, id="cosine-0.92-meets-the-default-0.9"),
    pytest.param(0.88, None, 0, id="twin-cosine-0.88-does-not"),
    pytest.param(0.92, 0.95, 0, id="twin-a-higher-cutoff"),
    pytest.param(0.88, 0.85, 5, id="cosine-0.88-meets-0.85"),
])
def test_semantic_instruction_threshold_is_the_cosine_of_one_instruction_reworded(cosine, cutoff, count):
    from loopmetric import read_deepeval_trace

    extra = {} if cutoff is None else {"semantic_instruction_threshold": cutoff}
    settings = LoopSettings(semantic=True, embedder=at_cosine(cosine), **extra)
    found = detect_reworded_instructions(read_deepeval_trace(surfer(PROSE)), settings)
    assert [f.count for f in found] == ([count] if count else [])


# Vectors of norm 3 whose pairwise cosines are exactly 8/9: a cut-off of 8/9 is met exactly.
NINTHS = [[2.0, 1.0, 2.0], [1.0, 2.0, 2.0], [2.0, 2.0, 1.0]]


def cycling(vectors: list[list[float]]):
    """An embedder giving the n-th distinct text the vector vectors[n % len(vectors)]."""
    seen: dict[str, int] = {}
    return lambda texts: [vectors[seen.setdefault(t, len(seen)) % len(vectors)] for t in texts]


@pytest.mark.parametrize(("cutoff", "count"), [
    pytest.param(8 / 9, 4, id="a-cosine-equal-to-the-cutoff-is-the-same-meaning"),
    pytest.param(8 / 9 + 1e-9, 0, id="twin-just-above-it-is-not"),
])
def test_a_reply_at_exactly_the_semantic_threshold_repeats(cutoff, count):
    settings = LoopSettings(semantic=True, embedder=cycling(NINTHS + [NINTHS[0]]), semantic_threshold=cutoff)
    found = detect_conversation_loops(read_chat_messages(chat(ASKS[:4], PRESS)), settings)
    assert [f.count for f in found] == ([count] if count else [])


@pytest.mark.parametrize(("cutoff", "count"), [
    pytest.param(8 / 9, 5, id="an-instruction-at-exactly-the-cutoff-is-reworded"),
    pytest.param(8 / 9 + 1e-9, 0, id="twin-just-above-it-is-not"),
])
def test_an_instruction_at_exactly_the_semantic_instruction_threshold_is_reworded(cutoff, count):
    from loopmetric import read_deepeval_trace

    settings = LoopSettings(semantic=True, embedder=cycling(NINTHS), semantic_instruction_threshold=cutoff)
    found = detect_reworded_instructions(read_deepeval_trace(surfer(PROSE)), settings)
    assert [f.count for f in found] == ([count] if count else [])


NOTHING_NEW = [f"Please {word}, I insist." for word in
               ("help", "hurry", "listen", "reconsider", "check", "retry", "look", "answer", "think", "decide")]
AXES = [[1.0 if i == n else 0.0 for i in range(5)] for n in range(5)]  # five texts, each its own direction


@pytest.mark.parametrize(("distinct", "count"), [
    # a b c d a b c d: each of the last four repeats the reply 4 before it, the farthest looked at
    pytest.param(4, 5, id="a-reply-repeating-the-one-four-back"),
    # a b c d e a b c d e: the reply 5 back is out of reach
    pytest.param(5, 0, id="twin-five-back-is-out-of-reach"),
])
def test_a_reply_repeats_one_of_the_four_before_it(distinct, count):
    replies = [f"Reply about topic {'abcde'[n % distinct]} in words of its own." for n in range(2 * distinct)]
    vectors = {text: AXES[n % distinct] for n, text in enumerate(replies)}
    settings = LoopSettings(semantic=True, embedder=lambda texts: [vectors[t] for t in texts])
    found = detect_conversation_loops(read_chat_messages(chat(replies, NOTHING_NEW)), settings)
    assert [f.count for f in found] == ([count] if count else [])


@pytest.mark.parametrize(("arguments", "count"), [
    pytest.param(lambda text: {"instruction": text}, 5, id="one-argument-in-prose-is-an-instruction"),
    pytest.param(lambda text: {"instruction": text, "tab": "main"}, 0, id="twin-two-arguments-are-not"),
])
def test_an_instruction_is_a_call_with_one_argument(arguments, count):
    from loopmetric import read_deepeval_trace

    trace = agent(*[tool("WebSurfer", arguments(text), output=f"I scrolled the page ({n * 10}% seen).")
                    for n, text in enumerate(PROSE)])
    found = detect_reworded_instructions(read_deepeval_trace(trace), LoopSettings(semantic=True, embedder=same_vector))
    assert [f.count for f in found] == ([count] if count else [])


def unanswered_last(replies: list[str]) -> list:
    """The replies, each pressed by the other side but the last, which ends the run."""
    return chat(replies, PRESS)[:-1]


@pytest.mark.parametrize(("messages", "count"), [
    # five refusals, the fifth unanswered: only an answered reply is a turn of a conversation
    pytest.param(unanswered_last(REFUSALS[:5]), 4, id="the-last-reply-unanswered-is-not-a-turn"),
    pytest.param(chat(REFUSALS[:5], PRESS), 5, id="twin-all-five-answered"),
    # the agent writing to itself, nobody answering: no conversation at all
    pytest.param([{"role": "user", "content": "Please add travel insurance to my booking."}]
                 + [{"role": "assistant", "content": reply} for reply in REFUSALS[:5]], 0,
                 id="replies-nobody-answers-are-not-a-conversation"),
])
def test_only_replies_the_other_side_answers_are_turns(messages, count):
    found = detect_conversation_loops(read_chat_messages(messages), ON)
    assert [f.count for f in found] == ([count] if count else [])


@pytest.mark.parametrize(("told", "again", "count"), [
    # the id told once ("ZX91Q." ending a sentence) and again ("ZX91Q,"): the second time is nothing new
    pytest.param("It is ZX91Q.", "I said ZX91Q, please.", 4, id="a-fact-told-again-is-not-new-whatever-ends-the-sentence"),
    pytest.param("It is ZX91Q.", "Or maybe ZX92Q, please.", 0, id="twin-another-id-is-new"),
    # only the full stop ending the sentence goes: AB12X and AB12 are two ids
    pytest.param("It is AB12X.", "Or maybe AB12, please.", 0, id="twin-an-id-one-letter-shorter-is-new"),
])
def test_a_fact_told_again_after_a_full_stop_is_not_news(told, again, count):
    presses = [told, "Please, it matters a lot.", again, "Please try anyway.", "Really nothing?"]
    found = detect_conversation_loops(read_chat_messages(chat(REFUSALS[:5], presses)), ON)
    assert [f.count for f in found] == ([count] if count else [])


def tool_turn(reply: str) -> list:
    return [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_reservation", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"insurance": "no"}'},
        {"role": "assistant", "content": reply}]


@pytest.mark.parametrize(("second_tool", "count"), [
    # a tool before the first reply, another between the second and the third: a new result between
    pytest.param(True, 0, id="a-second-tool-between-replies-breaks-the-chain"),
    pytest.param(False, 4, id="twin-one-tool-before-them-all"),
])
def test_every_tool_run_between_two_replies_counts(second_tool, count):
    messages = [{"role": "user", "content": "Please add travel insurance to my booking."}]
    for n, reply in enumerate(REFUSALS[:4]):
        messages += tool_turn(reply) if n == 0 or (second_tool and n == 2) else [
            {"role": "assistant", "content": reply}]
        messages.append({"role": "user", "content": PRESS[n]})
    found = detect_conversation_loops(read_chat_messages(messages), ON)
    assert [f.count for f in found] == ([count] if count else [])


def at_angles(*degrees: float):
    """An embedder giving the n-th text the unit vector at degrees[n] in a plane (cos >= 0.9: <= 25.8 degrees)."""
    import math

    vectors = [[math.cos(math.radians(d)), math.sin(math.radians(d))] for d in degrees]
    seen: dict[str, int] = {}
    return lambda texts: [vectors[seen.setdefault(t, len(seen))] for t in texts]


@pytest.mark.parametrize(("degrees", "count"), [
    # each within 20 degrees of the one before: one instruction drifting, reworded five times
    pytest.param((0, 20, 40, 60, 80), 5, id="each-close-to-the-one-before"),
    # the fourth is close only to the first (10 degrees), three back: the chain breaks there
    pytest.param((0, 20, 40, -10, -30), 0, id="twin-close-only-to-one-three-back"),
])
def test_an_instruction_repeats_one_of_the_two_before_it(degrees, count):
    from loopmetric import read_deepeval_trace

    settings = LoopSettings(semantic=True, embedder=at_angles(*degrees))
    found = detect_reworded_instructions(read_deepeval_trace(surfer(PROSE)), settings)
    assert [f.count for f in found] == ([count] if count else [])


@pytest.mark.parametrize(("names", "count"), [
    pytest.param(lambda n: "WebSurfer", 6, id="one-tool"),
    pytest.param(lambda n: ("WebSurfer", "FileSurfer")[n % 2], 0, id="twin-two-tools-in-turn"),
])
def test_reworded_instructions_go_to_one_tool_in_a_row(names, count):
    from loopmetric import read_deepeval_trace

    six = [*PROSE, "Please open the page and read the price of the last item"]
    found = detect_reworded_instructions(read_deepeval_trace(surfer(six, name=names)),
                                         LoopSettings(semantic=True, embedder=same_vector))
    assert [f.count for f in found] == ([count] if count else [])


def test_a_reworded_instruction_finding_names_its_steps_and_tool():
    from loopmetric import read_deepeval_trace

    trace = read_deepeval_trace(surfer(PROSE))
    (finding,) = detect_reworded_instructions(trace, LoopSettings(semantic=True, embedder=same_vector))
    assert finding.steps == tuple(c.step for c in trace.tool_calls)
    assert finding.message.startswith("Tool 'WebSurfer' was given 5 instructions in a row of the same meaning")
    assert finding.tools == ("WebSurfer",) and finding.similarity == 1.0


FARE = ("I have checked the options for your trip. Upgrading both flights to business class would cost {a} in total, "
        "and the fare difference paid with your credit card ending in 7447 would be {b}. Would you like to proceed?")
ASKED = ["That is too much, what else is there?", "Still over my budget, anything cheaper?",
         "Hmm, maybe another combination?", "What would that be then?"]


@pytest.mark.parametrize(("amounts", "count"), [
    pytest.param([("$1,240", "$620"), ("$980", "$490"), ("$760", "$380")], None,
                 id="three-fares-worked-out-each-new"),
    pytest.param([("$1,240", "$620"), ("$980", "$490"), ("$760", "$380"), ("$540", "$270")], None,
                 id="four-fares-worked-out-each-new"),
    pytest.param([("$1,240", "$620")] * 3, 3, id="twin-the-same-fare-three-times"),
    # The second fare was news; the third and fourth only go back to fares already given.
    pytest.param([("$1,240", "$620"), ("$980", "$490"), ("$1,240", "$620"), ("$980", "$490")], 3,
                 id="twin-back-and-forth-between-fares-already-given"),
])
def test_a_reply_stating_a_number_nobody_stated_is_no_repeat(amounts, count):
    """Replies alike in words that each state figures nobody in the conversation stated before (another
    fare worked out) tell something new; the same figures again, or figures already given, do not."""
    messages = [{"role": "user", "content": "I want to upgrade my trip but keep it under my budget."}]
    for (a, b), asked in zip(amounts, ASKED):
        messages += [{"role": "assistant", "content": FARE.format(a=a, b=b)}, {"role": "user", "content": asked}]
    found = [f for f in detect_loops(messages).findings if f.pattern == "repeated_reply"]
    assert [f.count for f in found] == ([count] if count else [])


@pytest.mark.parametrize(("counter", "count"), [
    pytest.param(lambda n: f"(attempt {n})", 3, id="an-attempt-counter-is-no-fact"),
    pytest.param(lambda n: f"at 10:3{n}:07", 3, id="a-clock-read-to-the-second-is-no-fact"),
    pytest.param(lambda n: f"for flight HAT0{n}5", None, id="twin-another-flight-is-one"),
])
def test_a_reply_restated_with_a_counter_or_a_clock_is_still_the_same_reply(counter, count):
    """Replies reworded a little (so not the same text) whose only new token is a counter or a clock."""
    messages = [{"role": "user", "content": "Please look up my reservation."}]
    for n, (asked, wait) in enumerate(zip(ASKED, ("Please hold on", "Please wait", "Bear with me")), start=1):
        reply = (f"I could not reach the booking system {counter(n)}. {wait} while I try again to look up "
                 "your reservation and its payment details.")
        messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": asked}]
    found = [f for f in detect_loops(messages).findings if f.pattern == "repeated_reply"]
    assert [f.count for f in found] == ([count] if count else [])
