"""The other side says it already said it ("like I said", "I told you", "that's exactly what I
did") and the agent says the same thing again: a link of its own (`_already_said`), at the
default settings. The agent's replies here are reworded past what `_replies._restated` calls
the same thing (the rule without this link finds none of these loops: each finding below is
this link's), so the lower bar for "the same" (two stems in common with a recent reply) holds
only because the other side said the agent was going round. Healthy twins change one thing."""

from __future__ import annotations

import json

import pytest

from loopmetric import detect_loops, read_chat_messages
from loopmetric._patterns import PATTERNS
from loopmetric.cli import main
from loopmetric.detectors._already_said import says_already_said
from tests._traces import chat

SAYS_IT = [
    ("as-i-said", "As I said, the order number is on the receipt."),
    ("like-ive-told-you", "Like I've told you, there is no second account."),
    ("as-i-already-mentioned", "as I already mentioned, it's for my daughter"),
    ("i-already-gave", "I already gave you my date of birth."),
    ("ive-already-provided", "I've already provided the serial number"),
    ("i-just-told-you", "I just told you the license is stolen"),
    ("i-told-you", "I told you, NO rows."),
    ("i-said-it-before", "I said that before, it's the blue one"),
    ("we-told-you-earlier", "We told you earlier that we moved."),
    ("i-sent-you-it-before", "I sent you the photo before, twice."),
    ("i-provided-it-already", "I provided that already in my first message"),
    ("i-keep-telling", "I keep telling you it's switched on"),
    ("for-the-third-time", "For the third time: I don't have a card."),
    ("how-many-times", "no drops. how many times"),
    ("i-said-i", "I said I don't have it!!"),
    ("i-said-yes", "YES i said yes twice"),
    ("did-you-read", "Did you read my message? I can't take a picture."),
    ("not-listening", "youre not listening"),
    ("exactly-what-i-have", "thats exactly what i have"),
    ("the-same-thing", "that's the same thing. doesn't work"),
    ("you-already-asked", "You already asked me that."),
    ("did-that-already", "I did that already, twice"),
    ("as-mentioned", "As mentioned, the flight was cancelled."),
    ("curly-apostrophe", "That’s exactly what I typed."),
]
SAYS_NOTHING_OF_IT = [
    ("just-tried-a-moment-ago", "I just tried sending a picture message, and it worked!"),
    ("just-sent", "I just sent the file over."),
    ("told-someone-else", "I told my manager about it yesterday."),
    ("said-to", "I said to the courier to leave it next door."),
    ("as-mentioned-in-a-document", "Is that as mentioned in the manual?"),
    ("again-alone", "again?"),
    ("twice-alone", "It happened twice today."),
    ("tried-that-still", "tried that, still says 2"),
    ("thanks", "Thanks, that works."),
    ("the-same-as-what", "Is it the same price as before?"),
]


@pytest.mark.parametrize("text", [pytest.param(text, id=name) for name, text in SAYS_IT])
def test_how_anyone_says_they_said_it(text):
    assert says_already_said(text)


@pytest.mark.parametrize("text", [pytest.param(text, id=name) for name, text in SAYS_NOTHING_OF_IT])
def test_what_says_nothing_of_having_said_it(text):
    assert not says_already_said(text)


# The same fix proposed again in other words (imperatives: no stance, no ask), and the same ask
OPENING = {"fix": "My laptop shows nothing on the projector when I plug in the HDMI cable.",
           "ask": "I can't sign in to the expenses portal since this morning."}
REPLIES = {
    "fix": ["Press the Windows key and P together, then pick Duplicate so the picture goes to the projector.",
            "The display mode is probably set to the laptop alone. Open the projection menu with Windows+P and "
            "choose Duplicate.",
            "Try switching the projection mode: hold Windows, tap P, and select Duplicate from the panel on the right.",
            "Most often the laptop simply isn't sending the picture. Use the Windows+P shortcut and set it to "
            "Duplicate."],
    "ask": ["Could you send a screenshot of the error you see when you sign in?",
            "A screenshot would really help here. Grab one when the sign-in error shows up and attach it.",
            "To dig further I need an image of the error at sign-in. Shift+Win+S will capture it for you.",
            "Please attach a screenshot showing exactly what the error looks like after you sign in."],
}
# (the first turn says it already said it: two replies are one told it, three are two, four are three)
TURNS = {"fix": ["That's exactly what I did. Same blue screen.", "Did it again, the projector still shows it.",
                 "Like I said, Duplicate is already selected.", "ok"],
         "ask": ["I told you, it only says something went wrong.", "That is all it shows, nothing else.",
                 "Like I said, there's nothing more on the page.", "ok"]}
TOLD = {"fix": ['"That\'s exactly what I did"', '"That\'s exactly what I did"; "Like I said"'],
        "ask": ['"I told you"', '"I told you"; "Like I said"']}


@pytest.mark.parametrize(("kind", "times"), [pytest.param(kind, n, id=f"{kind}-{n}-replies")
                                             for kind in REPLIES for n in (2, 3, 4)])
def test_the_same_thing_again_after_being_told_is_a_loop_from_three_replies(kind, times):
    """Three replies saying the same thing, the other side saying in between that it already said it:
    the agent was told it was going round, and went on. Two (told once between them) are a reply
    and one ask again."""
    messages = chat(OPENING[kind], REPLIES[kind][:times], TURNS[kind])
    report = detect_loops(messages)
    assert report.success is (times < 3), report.reason
    if times >= 3:
        (finding,) = report.findings
        replies = tuple(step.step for step in read_chat_messages(messages).steps if step.kind == "llm")
        assert (finding.pattern, finding.count, finding.steps) == ("repeated_reply", times, replies)
        told = "once" if times == 3 else "twice"
        assert f"after the other side said {told} that it had already said it ({TOLD[kind][times - 3]})" in finding.message
        assert finding.message.endswith("The repeat is the agent's.")


def _projector(replies: list[str], turns: list[str]) -> list[dict]:
    return chat(OPENING["fix"], replies, turns)


FIX = REPLIES["fix"]
SAID = ["Did that, the projector still shows a blue screen.", "That's exactly what I did. Same blue screen.",
        "Like I said, Duplicate is already selected."]  # (told once, before the third reply)
CUE_WITH_NEWS = "That's exactly what I did. The projector's own menu shows its input set to VGA."
CALL = {"role": "assistant", "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "display_status", "arguments": "{}"}}]}


def _with_call(result: str, before_first: bool) -> list[dict]:
    """The three-reply loop with a display check before its third reply (and, with `before_first`,
    the same check before its first, answered "1 display: internal")."""
    messages = _projector(FIX[:3], SAID)
    at = next(n for n, m in enumerate(messages) if m.get("content") == FIX[2])
    messages[at:at] = [CALL, {"role": "tool", "tool_call_id": "c1", "content": result}]
    if before_first:
        messages[2:2] = [CALL, {"role": "tool", "tool_call_id": "c1", "content": "1 display: internal"}]
    return messages


def _and_then(messages: list[dict], turn: str, more: str) -> list[dict]:
    """`messages` with a second turn of the other side, `more`, right after its turn `turn`."""
    at = next(n for n, m in enumerate(messages) if m.get("content") == turn) + 1
    return messages[:at] + [{"role": "user", "content": more}] + messages[at:]


TWINS = [
    # the loop itself, each twin below changing one thing of it
    ("the-loop", _projector(FIX[:3], SAID), False),
    ("told-nothing-of-having-said-it", _projector(FIX[:3], [SAID[0], "Did it again. Same blue screen."]), True),
    ("told-after-the-last-reply", _projector(FIX[:3], [SAID[0], "Did it again. Same blue screen.", SAID[1]]), True),
    ("told-and-the-agent-takes-up-what-it-brought", _projector(
        FIX[:2] + ["Switch the projector's input from VGA to HDMI, then press Windows and P and pick Duplicate."],
        [SAID[0], CUE_WITH_NEWS]), True),
    ("told-with-news-left-unused", _projector(FIX[:3], [SAID[0], CUE_WITH_NEWS]), False),
    ("told-and-the-agent-tells-a-new-figure", _projector(
        FIX[:2] + ["Set the laptop to 1280x720 first, then hold Windows, tap P and select Duplicate."], SAID), True),
    # another way, on the same projector (one stem in common with the replies before)
    ("told-and-the-agent-tries-another-way", _projector(
        FIX[:2] + ["Then the projector itself may need a reset: hold its power button for ten seconds."], SAID), True),
    ("told-a-friendly-like-i-said", _projector(
        FIX[:2] + ["Glad it's sorted. Good luck with the presentation!"],
        [SAID[0], "Like I said, thanks, that works now!"]), True),
    ("told-and-a-check-answered-anew", _with_call("2 displays: internal, projector (mirrored)", False), True),
    ("told-and-a-check-answered-as-before", _with_call("1 display: internal", True), False),
    # the words that say it was said bring nothing to take up ("the same thing", "one more thing")
    ("told-the-same-thing-and-one-more-thing", _projector(
        FIX[:2] + ["One more thing to try: hold Windows, tap P, and select Duplicate from the panel."],
        [SAID[0], "This is the same thing again."]), False),
]


TWINS_NAMED = [
    pytest.param(_and_then(_projector(
        FIX[:2] + ["Switch the projector's input from VGA to HDMI, then press Windows and P and pick Duplicate."],
        [SAID[0], CUE_WITH_NEWS]), CUE_WITH_NEWS, "Still blue."), True,
        id="told-with-news-then-a-turn-more-and-the-agent-takes-up-the-news"),
    # the other side's words the task said already bring nothing to take up, whatever the agent said between
    pytest.param(_projector(FIX[:3], ["Did that, the laptop still shows a blue screen.", *SAID[1:]]), False,
                 id="told-in-the-tasks-own-words"),
]


@pytest.mark.parametrize(("messages", "healthy"),
                         [pytest.param(m, h, id=name) for name, m, h in TWINS] + TWINS_NAMED)
def test_each_condition_of_the_link_has_a_healthy_twin(messages, healthy):
    report = detect_loops(messages)
    assert report.success is healthy, report.reason
    if not healthy:
        assert "that it had already said it" in report.reason


MOVING_ON = [
    # "I told you" about a different thing each time, the agent doing each
    ("told-about-a-different-thing-each-time",
     chat("I need to update my account details.",
          ["Sure, what would you like to change?", "Thanks, your address is now 4 Mill Lane. Anything else?",
           "Done, the surname on the account now reads Okafor.",
           "I've blocked the card ending 4411 and ordered a new one to 4 Mill Lane."],
          ["I told you on the phone: my address, it's 4 Mill Lane now.",
           "As I mentioned in my email, my surname changed to Okafor.",
           "Like I said before, the old card ending 4411 is lost.", "thanks"])),
    # the user pressing one demand, the agent answering each turn differently and moving on
    ("the-users-own-demand-said-again",
     chat("I want a refund for the blender.",
          ["I can offer store credit for the full amount straight away.",
           "Refunds need the item back within 30 days; yours was bought 12 days ago, so you qualify.",
           "I've started the refund. A prepaid return label is on its way to your email."],
          ["I told you, I want a refund, not credit.", "Like I said, a refund. To my card.", "good"])),
    # a harness saying its rule again while the agent's replies each do something else
    ("the-harness-rule-said-again",
     [{"role": "system", "content": "Answer the user's question about the dataset."},
      {"role": "user", "content": "How many rows does the sales table have?"},
      {"role": "assistant", "content": "The sales table has rows for every order line since launch."},
      {"role": "user", "content": "As stated, reply with a single number only."},
      {"role": "assistant", "content": "Counting is needed first; the table lists order lines by region."},
      {"role": "user", "content": "As stated, reply with a single number only."},
      {"role": "assistant", "content": "48210"},
      {"role": "user", "content": "Thanks."}]),
]


@pytest.mark.parametrize("messages", [pytest.param(m, id=name) for name, m in MOVING_ON])
def test_said_again_while_the_agent_moves_on_is_no_loop(messages):
    report = detect_loops(messages)
    assert report.success, report.reason


def test_the_harness_saying_its_rule_again_is_no_such_turn():
    """Turns the reader reads as the harness's (the same words after each reply of an agent that acts):
    its rule said again, "like I said", is the harness rejecting the reply (`rejected_output`), not the
    other side saying it already said it."""
    messages = [{"role": "system", "content": "Act with <execute>code</execute>; the output comes back."},
                {"role": "user", "content": OPENING["fix"]}]
    for reply in FIX:
        messages += [{"role": "assistant", "content": reply},
                     {"role": "user", "content": "Like I said, write exactly one action."}]
    assert {step.source for step in read_chat_messages(messages).steps[1::2]} == {"harness"}
    report = detect_loops(messages)
    assert [finding.pattern for finding in report.findings] == ["rejected_output"], report.reason


def test_explain_says_the_repeat_is_the_agents(tmp_path, capsys):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(_projector(FIX[:3], SAID)))
    main(["explain", str(path)])
    out = capsys.readouterr().out
    assert "that it had already said it (\"That's exactly what I did\")" in out
    assert "The repeat is the agent's." in out
    assert f"repeated_reply: {PATTERNS['repeated_reply'].meaning}." in out
    assert "the other side saying it already said it" in PATTERNS["repeated_reply"].meaning.lower()


def _finding(message, *steps):
    from loopmetric._findings import Finding
    return Finding(pattern="repeated_reply", signal="reasoning_stagnation", severity="medium", message=message,
                   count=len(steps), steps=steps)


WIDEST = [
    # (the restated link's findings, the already-said link's, the messages kept)
    ("already-said-longer-replaces-the-restated-stretch", [("restated", 3, 5, 7)], [("said", 1, 3, 5, 7)], ["said"]),
    ("restated-longer-stays", [("restated", 1, 3, 5, 7)], [("said", 3, 5, 7)], ["restated"]),
    ("a-tie-keeps-the-restated", [("restated", 1, 3, 5)], [("said", 3, 5, 7)], ["restated"]),
    ("apart-both-stay", [("restated", 1, 3, 5)], [("said", 9, 11, 13)], ["restated", "said"]),
    ("longer-than-one-of-two-it-shares-with-is-not-enough",
     [("restated", 1, 3, 5), ("restated-2", 9, 11, 13, 15, 17)], [("said", 5, 7, 9, 11)], ["restated", "restated-2"]),
    ("longer-than-both-it-shares-with-replaces-both",
     [("restated", 1, 3, 5), ("restated-2", 9, 11, 13)], [("said", 3, 5, 7, 9, 11)], ["said"]),
]


@pytest.mark.parametrize(("first", "second", "kept"), [pytest.param(a, b, c, id=name) for name, a, b, c in WIDEST])
def test_of_two_links_finding_the_same_replies_the_one_holding_more_is_reported(first, second, kept):
    """One stretch of replies, one finding: its steps and count are the whole loop whichever link saw it whole."""
    from loopmetric.detectors._replies import _widest
    found = _widest([_finding(m, *s) for m, *s in first], [_finding(m, *s) for m, *s in second])
    assert [finding.message for finding in found] == kept
