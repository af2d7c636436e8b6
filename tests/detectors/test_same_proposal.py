"""The same proposal again (`_proposals`): the agent gives the same command, formula or snippet to run
reply after reply, while the other side says each time it did not work. Loops at 3, 4 and 5 replies;
each healthy twin changes one thing (another fix, a real change to the fix, what the other side said
taken up, a turn that says it worked, a guide moving on, the same fix given only twice)."""

from __future__ import annotations

import pytest

from loopmetric import detect_loops
from loopmetric.detectors._proposals import choice_of, proposal_of, says_failed
from tests._traces import chat

FAILED = [
    ("command-not-found", "zsh: command not found: rename"),
    ("shouted", "COMMAND. NOT. FOUND."),
    ("didnt-work", "I tried it and it didn't work"),
    ("doesnt-work-curly", "it doesn\u2019t work"),
    ("still", "still N/A"),
    ("same-error", "same error as before"),
    ("failed", "the build failed again"),
    ("did-not-help", "that did not help at all"),
]
NOT_FAILED = [
    ("worked", "that worked, thanks"),
    ("works-now", "Works now!"),
    ("next", "ok next"),
    ("asks-another", "great, and how do I list the hidden files too?"),
    ("found-it", "found it, it's in Downloads"),
]


@pytest.mark.parametrize("text", [pytest.param(text, id=name) for name, text in FAILED])
def test_how_a_turn_says_it_did_not_work(text):
    assert says_failed(text)


@pytest.mark.parametrize("text", [pytest.param(text, id=name) for name, text in NOT_FAILED])
def test_turns_that_say_no_failure(text):
    assert not says_failed(text)


PROPOSALS = [
    # a fenced block's words, the prose and a code span inside a sentence left out
    ("block", "Run this (`-n` previews):\n\n```bash\nrename 's/ /_/g' *\n```\n", {"rename", "s", "g"}),
    # a code span alone on a line; `$`, a lone number and spaces change nothing
    ("span-alone-on-a-line", "In B2:\n\n`=VLOOKUP(A2, Prices!$A$1:$B$500, 2, FALSE)`\n\nFill down.",
     {"vlookup", "a2", "prices", "a", "b", "false"}),
    ("listed-span", "Steps:\n- **`pip install --user requests`**\n", {"pip", "install", "user", "requests"}),
    ("prose-only", "Use the rename tool with `s/ /_/g` as its pattern.", set()),
    # a code span left alone on its line once the block before it on that line is read
    ("span-after-a-block-on-its-line", "```\nrm x\n``` `ls -l`", {"rm", "x", "ls", "l"}),
]


@pytest.mark.parametrize("text,words", [pytest.param(text, words, id=name) for name, text, words in PROPOSALS])
def test_what_a_reply_proposes(text, words):
    assert proposal_of(text) == words


OPENING = "How do I replace the spaces in my file names with underscores? I'm on a Mac."
RENAME = [
    "The quickest way is the rename command:\n\n```bash\nrename 's/ /_/g' *\n```\n\nAdd `-n` to preview first.",
    "No worries! Use the Perl-style rename utility. Dry run first:\n\n```bash\nrename -n 's/ /_/g' *\n```\n\n"
    "then run it again without the flag.",
    "On your Mac the same idea applies: rename takes a regular expression for each name.\n\n```\n"
    "rename  \"s/ /_/g\"  *\n```",
    "Sorry for the trouble! Here's the command once more, run it inside the folder:\n\n```bash\nrename 's/ /_/g' *\n```",
    "Let's try it one more time, carefully:\n\n```sh\nrename 's/ /_/g' *\n```\n\nLet me know how it goes!",
]
NOT_FOUND = ["zsh: command not found: rename", "it says command not found. there is no rename",
             "COMMAND. NOT. FOUND.", "still not found", "same error"]

LOOKUP_OPENING = "How do I get the price from my Prices sheet into Orders? Codes in column A, prices in B."
LOOKUP = [
    "Use VLOOKUP. In B2 of Orders enter:\n\n`=VLOOKUP(A2, Prices!A:B, 2, FALSE)`\n\nThen drag it down.",
    "#N/A means no match was found. Make sure it's an exact match:\n\n`=VLOOKUP(A2, Prices!$A:$B, 2, FALSE)`\n",
    "Let's make sure the formula is set up exactly right:\n\n`=VLOOKUP(A2, Prices!$A$1:$B$500, 2, FALSE)`\n",
    "The classic and most reliable approach is still:\n\n**`=VLOOKUP(A2,Prices!A:B,2,FALSE)`**\n",
]
STILL_NA = ["still #N/A on every row", "same error", "it doesn't work"]

# The command rows go through the reader's calls: a code block answered by "command not found" is read as a
# shell call, the other side's words its result. The formula rows are replies and turns alone.
# steps: the opening is step 0, then reply, turn, reply, ... (the first and last reply)
LOOPS = [
    ("command-3-replies", OPENING, RENAME[:3], NOT_FOUND[:2], (1, 5)),
    ("command-5-replies", OPENING, RENAME, NOT_FOUND[:4], (1, 9)),
    ("formula-4-replies", LOOKUP_OPENING, LOOKUP, STILL_NA, (1, 7)),
    # the second proposal shares 3 of the 5 words of the first (Jaccard 3/5 = 0.6, the bound: the same)
    ("shares-exactly-the-bound", "git pull fails on my laptop.",
     ["Run:\n\n```\ngit pull --rebase origin main\n```", "Then just:\n\n```\ngit pull origin\n```",
      "Once more with the rebase:\n\n```\ngit pull --rebase origin main\n```"],
     ["didn't work", "still the same error"], (1, 5)),
]


@pytest.mark.parametrize("opening,replies,turns,steps",
                         [pytest.param(*row[1:], id=row[0]) for row in LOOPS])
def test_the_same_proposal_again_is_a_loop(opening, replies, turns, steps):
    report = detect_loops(chat(opening, replies, turns))
    found = [f for f in report.findings if f.pattern == "repeated_reply"]
    assert not report.success and len(found) == 1
    assert (found[0].steps[0], found[0].steps[-1]) == steps and found[0].count == len(replies)
    assert found[0].message.startswith("The agent proposed the same thing to run or enter")


HEALTHY = [
    # each reply another fix, each answered "didn't work"
    ("different-fixes", OPENING,
     ["Try the rename tool:\n\n```bash\nrename 's/ /_/g' *\n```",
      "Install it first:\n\n```bash\nbrew install rename\n```",
      "Then a plain loop with mv:\n\n```bash\nfor f in *\\ *; do mv -n \"$f\" \"${f// /_}\"; done\n```",
      "Or with find:\n\n```bash\nfind . -name '* *' -execdir zsh -c 'mv \"$1\" \"${1// /_}\"' _ {} \\;\n```"],
     NOT_FOUND[:3]),
    # other fixes the first reply named, tried in turn: no word nobody had said, yet not the same
    ("fixes-named-up-front-tried-in-turn", OPENING,
     ["There are three ways: `brew install rename`, `port install rename`, or zsh's own `autoload zmv` with "
      "`zmv '(* *)' '${1// /_}'`. Start with Homebrew:\n\n```bash\nbrew install rename\n```",
      "Then MacPorts:\n\n```bash\nport install rename\n```",
      "Then zsh itself:\n\n```bash\nautoload zmv\nzmv '(* *)' '${1// /_}'\n```"],
     ["zsh: command not found: brew", "zsh: command not found: port"]),
    # the same fix refined with a real change each time: words nobody had said
    ("refined-with-real-changes", "How do I install requests? pip fails.",
     ["Run:\n\n```\npip install requests\n```",
      "Install it for your user alone:\n\n```\npip install --user requests\n```",
      "Call pip through the interpreter:\n\n```\npython3 -m pip install --user requests\n```"],
     ["didn't work, permission denied", "still failing"]),
    # the other side names what the fix needs, and the fix takes it up
    ("takes-up-what-it-was-told", OPENING,
     ["Run:\n\n```bash\nrename 's/ /_/g' *\n```",
      "Run it on the pictures:\n\n```bash\nrename 's/ /_/g' *.jpg\n```",
      "Then the videos too:\n\n```bash\nrename 's/ /_/g' *.jpg *.mov\n```"],
     ["didn't work, they're all jpg files", "still nothing changed for the mov files"]),
    # the same command given again after it worked, for another folder
    ("same-command-after-it-worked", "Which folders take up space in my home dir?",
     ["From your home folder:\n\n```bash\ndu -sh * | sort -h\n```",
      "Run the same there:\n\n```bash\ndu -sh * | sort -h\n```",
      "Same command again inside it:\n\n```bash\ndu -sh * | sort -h\n```"],
     ["nice, Pictures is 48G. and inside Pictures?", "ok, a folder called Exports is big. and inside that one?"]),
    # a guide: each step another command, the other side going along
    ("step-by-step-guide", "How do I set up a Python project?",
     ["First create a folder:\n\n```\nmkdir project\n```", "Then a virtual environment:\n\n```\npython3 -m venv .venv\n```",
      "Activate it:\n\n```\nsource .venv/bin/activate\n```", "And install what you need:\n\n```\npip install requests\n```"],
     ["ok", "next", "done, next"]),
    # fixes named up front sharing words: fetch, rebase, push share git and origin, 2 of 4 words then
    # 2 of 5 (Jaccard 0.5 and 0.4, under 0.6): other fixes, not the same one again
    ("fixes-sharing-a-word-or-two", "git push is rejected, help",
     ["Try these in turn until one works: fetch first, then rebase, then as a last resort force the push."
      "\n\n```\ngit fetch origin\n```",
      "Next:\n\n```\ngit rebase origin\n```", "Last resort:\n\n```\ngit push origin --force\n```"],
     ["didn't work, still rejected", "still rejected"]),
    # the same fix twice, then another one
    ("same-fix-twice-then-another", OPENING,
     [RENAME[0], RENAME[3], "Then with a loop and mv:\n\n```bash\nfor f in *\\ *; do mv -n \"$f\" \"${f// /_}\"; done\n```"],
     NOT_FOUND[:2]),
]


@pytest.mark.parametrize("opening,replies,turns", [pytest.param(*row[1:], id=row[0]) for row in HEALTHY])
def test_other_fixes_and_fixes_taken_up_are_no_loop(opening, replies, turns):
    report = detect_loops(chat(opening, replies, turns))
    assert report.success, report.reason


# The same choice asked again once the other side made it (`same_choice`): the options are the nearest
# content word on either side of each "or" of a question.
CHOICES = [
    ("two-options", "Should this be formal or informal?", {"formal", "informal"}),
    ("parenthesised", "Should I address her formal (usted) or informal (tu)?", {"ust", "informal"}),
    ("words-between", "Would you like to freeze your membership or cancel it?", {"membership", "cancel"}),
    ("not-a-question", "You can keep it formal or informal.", set()),
    # the question mark inside emphasis or a bracket still ends a question
    ("bold-question", "Would you like it **formal or informal?**", {"formal", "informal"}),
    ("no-or", "Which tone would you prefer?", set()),
]


@pytest.mark.parametrize("text,options", [pytest.param(text, options, id=name) for name, text, options in CHOICES])
def test_the_options_a_question_offers(text, options):
    assert choice_of(text) == options


TONE = "Translate for my coworker: 'meeting moved to Thursday, can you bring the budget files?'"
CHOICE_LOOPS = [
    # each time asked again, the first answer standing
    ("choice-3-replies", TONE,
     ["Sure. Should the message be formal or informal?", "Got it. Is the tone formal or casual for this one?",
      "Thanks. Just to check, formal or informal?"],
     ["informal", "informal, she's a friend"], (1, 5), 3),
    # another question between, answered too, then both asked again
    ("choice-4-replies", TONE,
     ["Sure. Should this be formal or informal?", "Ok. Do you want the tu or usted form for Carmen?",
      "Understood. Is the tone formal or casual for this message?",
      "Thanks. Should I address her formal (usted) or informal (tu)?"],
     ["informal, we are friends", "tu", "casual. informal."], (1, 7), 4),
    ("choice-5-replies", TONE,
     ["Should this be formal or informal?", "Is the register formal or informal?", "Formal or relaxed wording?",
      "Should it sound formal or friendly?", "Last check: formal or informal?"],
     ["informal", "informal", "relaxed, informal", "friendly"], (1, 9), 5),
]


@pytest.mark.parametrize("opening,replies,turns,steps,count",
                         [pytest.param(*row[1:], id=row[0]) for row in CHOICE_LOOPS])
def test_the_same_choice_asked_again_once_made_is_a_loop(opening, replies, turns, steps, count):
    report = detect_loops(chat(opening, replies, turns))
    found = [f for f in report.findings if f.pattern == "repeated_reply"]
    assert not report.success and len(found) == 1, report.reason
    assert (found[0].steps[0], found[0].steps[-1]) == steps and found[0].count == count
    assert found[0].message.startswith("The agent asked the other side")


CHOICE_HEALTHY = [
    # asked once more because the first turn chose nothing, then answered: the conversation moves on
    ("asked-again-once-then-answered", "I need a seat on the 9:40 to Leeds.",
     ["Would you like a window or aisle seat?",
      "A window seat has the view, an aisle seat is easier to leave. Window or aisle?",
      "Done: seat 14C on the 9:40 to Leeds. Anything else?"],
     ["what's the difference?", "aisle"]),
    # a choice made, asked again once, then the work done
    ("made-asked-again-once-then-done", TONE,
     ["Should the message be formal or informal?", "Is the tone formal or casual for this one?",
      "Here it is: 'Hola Carmen, la reunión se movió al jueves. ¿Puedes traer los archivos del presupuesto?'"],
     ["informal", "casual"]),
    # many different questions, each answered
    ("different-questions-each-answered", "Book me a flight to Lisbon next week.",
     ["Would you like a window or aisle seat?", "Vegetarian or regular meal?", "Morning or evening departure?",
      "One checked bag or two?"],
     ["aisle", "regular", "evening", "two"]),
    # a question on the answer: the choice made, the next one about it
    ("follow-up-on-the-answer", "I want to order a shirt.",
     ["Would you like the blue or the red shirt?", "The red shirt in cotton or linen?",
      "Which size for the linen one, small or medium?"],
     ["red", "linen"]),
    # the same choice asked while the other side has not made it
    ("not-chosen-asked-again", "I'm moving away and need to sort out my gym membership.",
     ["Would you like to freeze your membership or cancel it?",
      "No rush. Should I freeze the membership or cancel it?",
      "Whenever you are ready: freeze the membership, or cancel it?"],
     ["not sure yet, what does it cost?", "hmm, let me think about it"]),
]


@pytest.mark.parametrize("opening,replies,turns", [pytest.param(*row[1:], id=row[0]) for row in CHOICE_HEALTHY])
def test_choices_made_once_or_never_are_no_loop(opening, replies, turns):
    report = detect_loops(chat(opening, replies, turns))
    assert report.success, report.reason


def _polled(status: list[str]) -> list[dict]:
    """The same command proposed with each look at a build's status, the status changing each time."""
    messages = [{"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": "my deploy is stuck, what do I run?"}]
    for n, answer in enumerate(status):
        call = {"id": f"call_{n}", "type": "function", "function": {"name": "build_status", "arguments": "{}"}}
        messages += [{"role": "assistant", "content": "Retry the deploy:\n\n```\nmake deploy\n```\n\nI'll watch the build.",
                      "tool_calls": [call]},
                     {"role": "tool", "tool_call_id": f"call_{n}", "content": answer},
                     {"role": "user", "content": "still failing"}]
    return messages


def test_a_word_told_two_turns_back_taken_up_is_no_loop():
    """The other side says two things between replies: what the fix lacks ("--user"), then that it
    still fails. The next fix takes up the first turn's word: a real change, even though the last turn
    said nothing new; the same fix given twice more is below the loop."""
    messages = [{"role": "user", "content": "How do I install requests? pip fails."},
                {"role": "assistant", "content": "Run:\n\n```\npip install requests\n```"},
                {"role": "user", "content": "didn't work, it tells me to add --user"},
                {"role": "user", "content": "still failing"},
                {"role": "assistant", "content": "Then:\n\n```\npip install --user requests\n```"},
                {"role": "user", "content": "still failing"},
                {"role": "assistant", "content": "Again:\n\n```\npip install --user requests\n```"}]
    report = detect_loops(messages)
    assert report.success, report.reason


def test_a_run_of_tool_calls_alone_asks_no_choice():
    """A recorded run whose steps are tool calls alone (no reply, no turn) asks nobody to choose: read
    without error, healthy."""
    from tests._traces import agent, tool

    report = detect_loops(agent(tool("search", {"q": "a"}, "first"), tool("search", {"q": "b"}, "second")))
    assert report.success and not report.findings, report.reason


def test_the_same_command_after_a_status_that_changed_is_no_loop():
    # a tool call answered between the replies: the agent looked again and saw something new
    report = detect_loops(_polled(["queued", "building 40%", "building 90%", "done"]))
    assert report.success, report.reason
