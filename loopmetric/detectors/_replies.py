"""Conversation loops (`repeated_reply`): the agent answers turn after turn with
nearly the same reply, nothing but the other side's turns between them (no
tool call): the same refusal to a user who keeps asking, the same request for
an id the user never gives.

Replies are compared as reasoning text is (`_similarity`), at the lower
`reply_similarity_threshold`: a reworded refusal is still the same refusal.
Two replies that both decline (`_declines`: they say something cannot be done)
are the same refusal when they share at least `_REFUSAL_SIMILARITY` of their
content words (Jaccard of the word sets: 0.10, the middle of the range the design
half gives alike, 0.05-0.15; declines of different requests share none, a story
whose people cannot do things 0.06); a chain that rests on such a link needs
`_REFUSAL_CHAIN` (4) replies, since three refusals of varied wording are still a
conversation working out what can be done.
A reply that follows a tool call, that differs from the one before, or whose
new words come from the input it answers (the agent took up what it was told),
starts afresh; short replies count only when exactly equal.
A reply that declines or says again what it said but offers a way forward nobody had said
(`_offers_new`: its sentences in which the agent proposes what it can do, `_stances.offered`,
hold at least `_OFFER_NEW` stems the conversation had not said, half of theirs) moves on and links
to no chain, here or in `_restated`: an agent that holds the rule while it tries a pickup point,
then the courier's depot, then a refund to reorder is exploring; the same store credit offered
again in a few new words is not new.

The same thing in other words (`_restated`): turn after turn, a reply says what one of the
agent's last `_RECENT` replies said, while the other side's turns bring nothing it takes up and
say no change the reply before asked for that they had not said (`_news.changes_told`: "I
turned Wi-Fi Calling off"; the first pass reads them alike), no tool call is answered anew and
no new fact enters (`_unchanged`: a call sent again and answered exactly as before tells the
agent nothing, so it does not end the chain; a call answered anew does; `_new_facts`: a fact one
of the agent's tool calls or their results had told is none, whether a turn relays it, "the advert
closed on 15 November", or a reply tells it, "the run took 14m02s"). A fact the other side's turns
told while pushing back ("can it be faster? rent comes out on the 10th", "but it's only 2 days later?"),
the reply before having asked them for nothing, is news only when the reply tells it or works with
what those turns brought outside an acknowledgment or a no (`_aside`): one that says the same status
or no again left it aside, and the chain goes on (such a reply is not read as unheard: that would make
it a loop a reply sooner). A reply that says no again and adds a line of facts nobody had told
("if your breathing gets worse, call 111") stays in the chain when the next reply says no again and
neither it nor the turns between take those facts up; else the chain ends before it (`pending`, one
such reply at a time).
"Says the same" is read from what the replies do
(`_stances`): it says nothing those replies had not said (at most `_NOTHING_NEW` of its
stems are new; a reply of courtesy alone says nothing), or it takes the same stance on the
same subject: it asks again for what they asked for (two stems in common), says no to what
they said no to or restates their rule (one stem in common, and in a chain always one of what
its first reply's stances were about: a story whose people cannot do one thing after another is
no refusal restated), or apologizes again. Or, whatever its words, it takes again the stance the
reply before it took (`_same_stance`: a no or a rule on the chain's subject, an apology, or a
request to wait that stalls: "one moment", "I'm still checking") while using none of the words
the other side's turns brought that nobody had said before: it answered them with what it had
said ("the address can no longer be edited", "the drop-off location is locked", "it can't be
modified at this stage"). Or, whatever its words and stances, it answers a turn that says no,
asks or says again in words of its own what the other side's turns said ("Did that. Still no
service.", "is something missing from my application?", "still got the sharp pain"), in words not
said before, with none of what that turn said (`_unheard`: no word of it the chain's replies had
not said, no fact of it),
while it stays on the chain's subject (two stems in common with its replies): the agent did not
hear the other side. Turns that only go along ("ok", "next", "go on") ask nothing, say no to
nothing and say nothing again: a guide or a story told in parts moves on without taking them up,
and is no such link.
Or, whatever its words, it does nothing but say no again to a side that pushed back
(`_declined_again`: each of its sentences says no, states a rule or apologizes, it asks and offers
nothing, the reply before it said no, the turns between ask, say no or press, "just refund it",
"seriously", and ask for nothing nobody had named), in words none of the agent's last replies had
said ("non-refundable", then "no reimbursement ... can't be paid back") and none of the turns'
new words: a refusal reworded in synonyms shares no word with the one before, and its words become
the chain's subject for the replies after it.
Or, whatever else it says, it does again what one of those replies did (`_same_act`, read from
what each reply does and about what, `_acts_of`): it asks for the same thing (its sentences that
ask the other side for something, questions, "I'll need the order number", "once you give me the
order number I can ...", share two stems with one's), offers the same thing (as many stems in
common with one's offers), or tells only facts one of them told, on a stem of theirs (the same
status, total or plan). What else it says does not matter (an acknowledgment, a restated reason,
the other side's words echoed: "I understand you're a contractor, but I still need the employee
ID"), unless it tells much nobody had said (more than `_SAYS_NEW` of its stems: "the driver is
installed ... shall I proceed?" after each new step moves on). Progress is judged by what the
agent does with what it heard, not by its echo: no such link when its asks or offers tell a fact
nobody had told (another slot, another amount), when it takes up a word the other side brought
that nobody had said outside an acknowledgment or a name it calls them by ("Thanks, Dario"), when
it tells a fact the other side told besides a no ("I don't have it; my email is ..."), when the
other side gave a value saying no no ("It's ZX81QK": asked for again, it was turned down, as a
tool rejecting it would), said a change the reply before asked for, or said it will look ("I'll
check my email"): the conversation waits on them.
A chain is a loop at `repeated_text_threshold` + 1
replies (four by default: saying no, the rule or sorry four times to a user who presses, or
nothing new four times), at `repeated_text_threshold` replies (three) when the other side pressed
one demand throughout (`_pressed`: each turn the chain answers says again what the turns before it
said, two stems in common: "refund the insurance", "I want the insurance refunded", "just the
insurance"): both sides go round, or when every link is a turn unheard (the other side said no
or asked, turn after turn, and the agent answered each with what it had), or when every reply
does nothing but ask the other side to wait (`_stances.waits_only`: "One moment while I check",
"Checking on it now, this should take a second", "I'm still pulling it up"): three promises of a
look with no tool call between and nothing coming back are a stall. A reply that asks to wait and
tells a step or an answer besides is no stall. So is a chain of apologies that do nothing else
(no ask, no offer, no fact, no decline): three are a loop. A chain of the same ask or offer (its
links asking or offering again, or unheard, or apologies) is a loop at `repeated_text_threshold`
replies: the agent asking three times for an id the other side says it does not have, bringing
nothing the agent uses, is stuck (links that ask again as read from the stances alone, below,
still need two more); a chain of the same facts told again, no ask or offer again among its
links, at one more.
Three refusals of
different requests about one booking, or of questions the other side moves on from, are a
conversation working out what can be done. At
`repeated_text_threshold` + 2 when a link rests on asking again as read from the stances alone
(`_says_again`: two stems in common among all the sentences that take a stance) and the same ask
does not hold: an agent must ask for a missing id until it has it, and asking three or four times,
the user looking or answering, is still a conversation working out what can be done (the design
half of the labelled tau-bench runs holds five such, none a loop); five times is not. A chain that
asks again (a "request" or "ask" link) while the other side said, every turn it answers, that it
has it not or cannot give it ("I don't have one", "still nothing"), never that it will look
(`_lacking`), is a loop at `repeated_text_threshold` replies whatever its links: the agent asking
three times for what the other side said three times it lacks is stuck.
An offer of what the agent will do once it is given what it asks for ("as soon as you find it I
can file the claim") is the ask again, no way forward nobody had said (`_unconditioned`).
"""

from __future__ import annotations

import re
from collections import Counter
from operator import attrgetter

from typing import AbstractSet, Callable, NamedTuple, Optional, Union

from .._canonical import normalize_text
from .._findings import Finding, step_range
from .._model import LlmOutput, Observation, ToolCall, Trace
from .._settings import LoopSettings
from .._text_actions import find_text_action
from ._already_said import already_said
from ._declines import declines
from ._evidence import Evidence, evidence_for
from ._facts import fact_parts, facts
from ._proposals import same_choice, same_proposal
from ._similarity import Words, content_words, similarity
from ._stances import (Stances, asked, asks, offered, offers_in, says_no, sentences, stances, stances_and_acts,
                       stems, waits_only)

__all__ = ["detect_repeated_replies"]

_REFUSAL_SIMILARITY = 0.10  # share of content words from which two replies that both decline are one refusal
_REFUSAL_CHAIN = 4  # replies a chain resting on such a link needs
_RECENT = 3  # replies back a restated reply is compared with
_NOTHING_NEW = 0.3  # share of a reply's stems, at most, that its recent replies had not said


def detect_repeated_replies(trace: Trace, settings: LoopSettings,
                            evidence: Optional[Evidence] = None) -> tuple[Finding, ...]:
    """`repeated_text_threshold` replies in a row, each nearly the same as the one
    before, with only input between them: severe."""
    threshold = settings.repeated_text_threshold
    if threshold is None:
        return ()
    cutoff = settings.reply_similarity_threshold
    contents = _Contents(settings.min_similarity_words)
    findings = []
    vocabulary = _Said(trace, lambda text: _words(text.casefold()))
    known = _Said(trace, fact_parts)
    # A recording of an agent that calls tools and whose LLM inputs hold no text of what the model
    # was told (`Trace.turns_recorded`): such an agent's model is called again after a tool's result
    # or after a turn of the other side, so two replies in a row, no tool call between, had a turn
    # between them that was not recorded, unless the first wrote an action (what answered it is
    # not recorded either: `_text`). A recording of replies alone says nothing of what came between.
    unrecorded = not trace.turns_recorded and any(step.kind == "tool" for step in trace.steps)
    kinds = ",".join(map(_KIND, trace.steps))
    if "input" not in kinds and (not unrecorded or "llm,llm" not in kinds):
        # no turn of the other side, no two replies in a row that may hide one: no link below, nor in
        # `_restated`, can hold (most traces; a new kind of link changes this condition too); the
        # same proposal again may still (`_proposals`: a code block read as a call, answered by a turn)
        return tuple(_proposed(trace, threshold, set()))
    # the other side's turns that say a change: news, as a fact is
    changes = evidence_for(trace, evidence).news.told if "input" in kinds else frozenset()
    asking = _asking(trace)
    chain: list[tuple[LlmOutput, float, bool]] = []  # (reply, similarity to the one before, as refusals)
    said_stems: Optional[_Said] = None  # the stems the conversation said, read once a declining reply offers
    for step in list(trace.steps) + [None]:
        if step is not None and step.kind == "input":
            continue
        reply = step if isinstance(step, LlmOutput) and step.step not in asking and step.has_text else None
        if reply is not None and chain and (_after_input(trace, chain[-1][0], reply) or
                                            unrecorded and _in_a_row(chain[-1][0], reply)):
            earlier = chain[-1][0]
            value = _same(earlier, reply, contents, cutoff)
            refusal = (value is None and declines(reply.text, folded=reply.normalized)
                       and declines(earlier.text, folded=earlier.normalized))
            if refusal:
                value = _same_refusal(earlier, reply, contents)
                offer = offered(reply.text) if value is not None else frozenset()
                if len(offer) >= _OFFER_NEW:
                    # (it declines again: an offer of a way forward nobody had said moves on; the stems
                    # said are read only for such a reply, most traces having none)
                    said_stems = said_stems or _Said(trace, stems, trace.task or "")
                    if _offers_new(offer, said_stems.before(reply.step - 1)):
                        value = None
            if value is not None and value < 1.0 and (_answers_input(trace, earlier, reply, vocabulary, contents, known)
                                                      or _tells_news(known, reply)
                                                      or any(earlier.step < n < reply.step for n in changes)):
                value = None
            if value is not None:
                chain.append((reply, value, refusal))
                continue
        finding = _finding(chain, threshold, cutoff, contents)
        if finding is not None:
            findings.append(finding)
        chain = [(reply, 1.0, False)] if reply is not None else []
    found = {step for finding in findings for step in finding.steps}
    restated = [finding for finding in _restated(trace, threshold, unrecorded, kinds, changes, asking)
                if not found.intersection(finding.steps)]
    findings.extend(_widest(restated, [finding for finding in already_said(trace, unrecorded, kinds)
                                       if not found.intersection(finding.steps)]))
    found = {step for finding in findings for step in finding.steps}
    findings.extend(_proposed(trace, threshold, found))
    return tuple(findings)


def _proposed(trace: Trace, threshold: int, found: set[int]) -> list[Finding]:
    """The same proposal again, then the same choice asked again (`_proposals`), on replies no finding
    before holds."""
    findings = []
    for finding in same_proposal(trace, threshold) + same_choice(trace, threshold):
        if not found.intersection(finding.steps):
            findings.append(finding)
            found = found | set(finding.steps)
    return findings


def _widest(first: list[Finding], second: list[Finding]) -> list[Finding]:
    """The findings of two links of the same loop (`_restated`'s, then `_already_said`'s), one
    for each stretch of replies both found: of two that share a reply, the one holding more
    replies (the first on a tie), so the loop's steps and count are its whole length whichever
    link saw it whole."""
    kept = list(first)
    for finding in second:
        steps = set(finding.steps)
        shared = [other for other in kept if steps.intersection(other.steps)]
        if all(len(finding.steps) > len(other.steps) for other in shared):
            kept = [other for other in kept if other not in shared] + [finding]
    return kept


_KIND = attrgetter("kind")


def _restated(trace: Trace, threshold: int, unrecorded: bool, kinds: str,
              changes: frozenset[int] = frozenset(), asking: frozenset[int] = frozenset()) -> list[Finding]:
    """Chains of replies that say the same thing as one of the agent's recent replies (see the
    module docstring), as findings; `kinds` is the steps' kinds joined by commas, read by the caller
    (which returns before this when no link can hold)."""
    # (calls answered as before matter only between turns of the other side: a run with none skips them)
    unchanged = _unchanged(trace, asking) if "input" in kinds else frozenset()
    if _longest_turns(trace, unrecorded, unchanged, asking) < threshold - 1:  # (no chain long enough: most traces)
        return []
    # (the task is the other side's first turn: the facts it told are told, and a later turn or reply
    # that tells them again tells nothing new)
    known = _Said(trace, fact_parts, trace.task)
    looked = _Looked(trace)  # what the agent's tool calls and their results told
    said: set[str] = set()  # the names, numbers and ids said so far (`_named`)
    stems_said: set[str] = set(stems(trace.task)) if trace.task else set()  # the stems the texts said so far
    fresh: set[str] = set()  # the stems the other side's turns brought since the agent's last reply
    brought: set[str] = set()  # those the other side's turns brought since the agent's last reply
    told = False  # whether those turns told a fact nobody had told
    told_parts: set[str] = set()  # the facts those turns told that nobody had told, saying no besides
    answered_anew = False  # whether those turns answered with a fact nobody had told, saying no no, or a change
    turn_facts: set[str] = set()  # the facts nobody had told that those turns told
    turn_parts: set[str] = set()  # every fact those turns told
    fact_turns: list[str] = []  # those of the turns that told a fact nobody had told
    parts_heard: set[str] = set()  # every fact the turns the last reply answered told
    # the chain's last reply when it told facts nobody had told, and those facts: it stays in the chain
    # only if nobody takes them up before the next reply says the same again
    pending: Optional[tuple[LlmOutput, frozenset[str]]] = None
    changed = False  # whether those turns said a change the reply before asked for
    # (`brought` and `told` are read only by a reply with an earlier one since the last tool call: the
    # reply after a tool call, with none, resets them.)
    recent: list[LlmOutput] = []  # the agent's replies since the last tool call
    read: dict[int, tuple[Stances, _Acts]] = {}  # each reply's stances and what it does, by step, read once
    heard: list[str] = [trace.task] if trace.task else []  # the other side's turns since the agent's last reply
    answered: dict[int, list[str]] = {}  # the turns each reply answered, by step
    # the other side's turns said for the first time since the agent's last reply, and every turn's
    # words said so far (a turn said again word for word brings nothing a reply could leave unheard)
    spoken: list[str] = []
    turns_said: set[str] = {normalize_text(trace.task)} if trace.task else set()
    first_said: dict[int, list[str]] = {}  # the first-said turns each reply answered, by step
    # the stems the other side's turns said before the agent's last reply, and those said since
    turn_stems: set[str] = set()
    turn_stems_since: set[str] = set(stems_said)
    replies_said: set[str] = set()  # the stems the agent's replies said so far
    chain: list[LlmOutput] = []
    chain_said: set[str] = set()  # the stems the chain's replies said (kept as the chain grows)
    reworded: frozenset[str] = frozenset()  # what the chain's replies that said no in new words were about
    links: list[str] = []
    findings: list[Finding] = []
    for step in list(trace.steps) + [None]:
        link = None
        if step is not None and step.step in unchanged:  # (a call answered as before: nothing new seen)
            continue
        if step is not None and step.kind == "input":
            named = _named(step.text)
            brought |= named - said
            said |= named
            found = stems(step.text)
            parts = fact_parts(step.text)
            new_parts = _new_facts(parts, step, known, looked) if parts else parts
            told |= bool(new_parts)  # (a fact the other side tells is news the next reply may use)
            turn_facts |= new_parts
            turn_parts |= parts
            if new_parts:
                fact_turns.append(step.text)
            changed |= step.step in changes
            if new_parts and _DECLINED.search(step.text):
                told_parts |= new_parts  # ("I don't have it; my email is ..."): facts told besides a no
            else:  # (a value the agent may have asked for, "It's ZX81QK", "Maybe AB12CD?": an answer)
                answered_anew |= bool(new_parts)
            answered_anew |= step.step in changes  # (as is a change the reply before asked for, made)
            told |= step.step in changes  # (as is a change it says it made)
            heard.append(step.text)
            folded = normalize_text(step.text)
            if folded not in turns_said:
                spoken.append(step.text)
                turns_said.add(folded)
            turn_stems_since |= found
            fresh |= found - stems_said
            stems_said |= found
            continue
        reply = step if isinstance(step, LlmOutput) and step.step not in asking and step.has_text else None
        if reply is not None:
            named = _named(reply.text)
            # (facts the other side told unasked, the reply before asking it for nothing, that the reply neither
            # tells nor takes up: news it left aside, "rent comes out on the 10th" answered with the same status)
            turn_ok = bool(recent) and _turn(trace, recent[-1], reply, unrecorded, unchanged)
            aside = told and not changed and turn_ok and _aside(turn_facts, fact_turns, reply, recent[-1], read, fresh)
            if aside:
                told = answered_anew = False
            took = told or bool(named & brought)
            said |= named
            # (an answer the agent asks again after is one it turned down, as a tool rejecting it would; a fact
            # told besides a no is used only by a reply that tells it)
            used = answered_anew or bool(told_parts) and not told_parts.isdisjoint(fact_parts(reply.text))
            brought, told, told_parts, answered_anew, turn_facts, changed = set(), False, set(), False, set(), False
            parts_heard, turn_parts, fact_turns = turn_parts, set(), []
            answered[reply.step], heard = heard, []
            first_said[reply.step], spoken = spoken, []
            linkable = turn_ok and not took
            news = _new_facts(fact_parts(reply.text), reply, known, looked) if linkable else frozenset()
            # (a reply that tells facts nobody had told may stay in a chain, one at a time: see `pending`)
            if linkable and (not news or chain and pending is None):
                # (what the chain is about: what its first reply's stances are about; a no or a rule
                # stays on it, a story whose people cannot do one thing after another moves off it)
                # (and the words of the replies that said no again in words none of the replies before had
                # said: the subject in other words, `_declined_again`)
                subject = _stances_of(chain[0] if chain else recent[-1], read).about | reworded
                link = _says_again(_stances_of(reply, read), [_stances_of(r, read) for r in recent[-_RECENT:]], subject)
                if link is None:
                    link = _same_stance(_stances_of(reply, read), _stances_of(recent[-1], read), fresh, subject)
                if link is None:
                    link = _declined_again(reply.text, _stances_of(reply, read), _acts_of(reply, read),
                                           [_stances_of(r, read) for r in recent[-_RECENT:]], fresh,
                                           answered[reply.step])
                    if link is not None:
                        reworded = reworded | _stances_of(reply, read).about
                if link is None and not aside:  # (a fact left aside is no sign the reply did not hear the turn)
                    link = _unheard(_stances_of(reply, read), _stances_of(recent[-1], read), reply.text,
                                    recent[-1].text, first_said[reply.step],
                                    chain_said if chain else _stances_of(recent[-1], read).stems,
                                    turn_stems - replies_said)
            if ((link is None or link == "ask") and recent and not used
                    and _turn(trace, recent[-1], reply, unrecorded, unchanged)):
                # (the same ask, offer or facts again, whatever else the reply says: an ask found so is
                # one whatever echo of the other side's words it holds, with no fact of theirs used;
                # not while the other side says it will look)
                again = _same_act(_acts_of(reply, read), [_acts_of(r, read) for r in recent[-_RECENT:]],
                                  lambda: known.before(reply.step - 1), fresh, stems_said)
                if again and not any(_LOOKING.search(turn) for turn in answered[reply.step]):
                    link = again
            if news and link is not None and (link not in _REFUSING
                                              or "no" not in _declining(_stances_of(reply, read).kinds)):
                link = None  # (a reply telling facts nobody had told stays in a chain only as a refusal again)
            if link is not None and link != "offer":  # (an offer said again is no new way forward)
                offer = frozenset().union(*_acts_of(reply, read).offers)  # (`offered`, read once)
                if len(offer) >= _OFFER_NEW:  # (an offer of what it will do with what it asks for is the ask)
                    sought = frozenset().union(*(_acts_of(r, read).asks for r in recent[-_RECENT:]))
                    offer = frozenset().union(*(stems for stems in _acts_of(reply, read).offers
                                                if len(stems & sought) < _ACT_COMMON))
                    if len(offer) >= _OFFER_NEW:
                        offer = _unconditioned(offer, reply.text)
                if _offers_new(offer, stems_said):
                    link = None  # (it says again what it said, but offers a way forward nobody had said)
            stems_said |= _stances_of(reply, read).stems
            replies_said |= _stances_of(reply, read).stems
            fresh = set()
            turn_stems |= turn_stems_since
            turn_stems_since = set()
            recent.append(reply)
        if pending is not None:
            # (the chain's last reply told facts nobody had told: it stays in the chain when this reply says
            # the same again and neither it nor the turns between took any of them up, a line said once
            # and left aside, "call NHS 111 if you feel unwell" among refusals; else the chain ends before it)
            if reply is None or link is not None and not pending[1].isdisjoint(parts_heard | fact_parts(reply.text)) \
                    or link is None:
                finding = _closed(chain[:-1], links[:-1], threshold, answered, read)
                if finding is not None:
                    findings.append(finding)
                if link is not None:  # (this reply says the same as it: a chain from it)
                    chain, links, reworded = [pending[0]], [], frozenset()
                    chain_said = set(_stances_of(pending[0], read).stems)
                else:
                    chain, links, reworded = [], [], frozenset()
            pending = None
        if link is not None:
            if news:
                pending = (reply, news)  # type: ignore[assignment]
            if not chain:
                chain = [recent[-2]]
                chain_said = set(_stances_of(recent[-2], read).stems)
            chain.append(reply)  # type: ignore[arg-type]
            chain_said |= _stances_of(reply, read).stems  # type: ignore[arg-type]
            links.append(link)
            continue
        finding = _closed(chain, links, threshold, answered, read)
        if finding is not None:
            findings.append(finding)
        chain, links, reworded = [], [], frozenset()
        if reply is None:  # a tool call, an output that asked for one, or the end
            recent = []
    return findings


def _closed(chain: list[LlmOutput], links: list[str], threshold: int, answered: dict[int, list[str]],
            read: dict[int, tuple[Stances, "_Acts"]]) -> Optional[Finding]:
    """The finding of a chain of `_restated` that ended (`links`: how each reply after the first
    said the same), or None when it is too short to be a loop."""
    links = list(links)
    # (a chain of replies each answering the other side's no or question with none of it: a loop at
    # `threshold` replies, as when the other side pressed one demand throughout)
    made = set(links)
    pressed = False
    if made == {"unheard"}:
        needed = threshold
    elif made <= _ACTING | {"sorry"} and made & {"request", "offer"}:  # (the same ask or offer: `threshold`)
        needed = threshold + (2 if "ask" in made else 0)
    elif made <= _ACTING:  # (the same facts told again: one more)
        needed = threshold + (2 if "ask" in made else 1)
    else:
        needed = threshold + (2 if made & {"ask", "request"} else 1)
    if len(chain) >= threshold and all(waits_only(reply.text) for reply in chain):
        # (a chain of replies that do nothing but ask the other side to wait: the agent stalls,
        # a loop at `threshold` replies)
        needed = threshold
        links.append("stall")
    elif (len(chain) >= threshold and set(links) == {"sorry"}
          and not any(_acts_of(r, read).does or declines(r.text) for r in chain)):
        needed = threshold  # (apologies and nothing else: no ask, no offer, no fact, no decline)
        pressed = len(chain) == threshold and _pressed(chain, answered)
    # (the same thing asked for while the other side says each turn it has it not: `threshold`)
    lacking = len(chain) >= threshold and _lacking(chain, links, answered)
    if lacking:
        needed = threshold
    if len(chain) >= needed:
        return _restated_finding(chain, links, pressed=pressed, lacking=lacking, what=_what(chain, links, read))
    if len(chain) == needed - 1 and needed > threshold and "ask" not in links and _pressed(chain, answered):
        return _restated_finding(chain, links, pressed=True, what=_what(chain, links, read))
    return None


def _aside(facts_told: AbstractSet[str], turns: list[str], reply: LlmOutput, earlier: LlmOutput,
           read: dict[int, tuple[Stances, "_Acts"]], fresh: AbstractSet[str]) -> bool:
    """Whether the facts the other side's turns told that nobody had told (`facts_told`, told in
    `turns`) were left aside by `reply`: each of those turns pushed back (it asks, says no or
    presses: "can it be faster? rent comes out on the 10th", "but it's only 2 days later?"; a fact
    told plainly, "My order is 55123", is news), the reply before (`earlier`) asked the other side
    for nothing (no such fact can be the value it asked for, "It's ZX81QK"), and `reply` tells none
    of them and takes up no stem the turns brought that nobody had said (`fresh`), outside an
    acknowledgment or a no (`_Acts.takes_up`): "I understand the timing matters with your rent
    coming up. Your request is with the team, a decision within three to five business days", the
    status it had told. A reply that answers with the fact, or works with what the turn brought,
    took it up."""
    if not facts_told or not facts_told.isdisjoint(fact_parts(reply.text)):
        return False
    if not all(_PRESSING.search(turn) is not None or not stances(turn).kinds.isdisjoint(_PUSHING) for turn in turns):
        return False
    return not _acts_of(earlier, read).asks and not _acts_of(reply, read).takes_up(fresh)


def _lacking(chain: list[LlmOutput], links: list[str], answered: dict[int, list[str]]) -> bool:
    """Whether the chain asks the other side again for the same thing (a "request" or "ask" link)
    while it says, every turn, that it has it not or cannot give it: each reply after the first
    answers turns each of which says no (`_DECLINED`: "I don't have one", "I can't take a
    picture"; or `_NOTHING`: "still nothing") and none of which says it will look ("I'll check my
    email": the conversation waits on them). The links already hold that those turns told no fact
    the agent used and brought nothing it took up. An agent asking three times for what the other
    side said three times it lacks is stuck; one asking while the other side looks, answers or
    talks around it is still working out what can be done, and one that says no again (no link
    asks) to a side that says no back needs one reply more, as any refusal restated does."""
    if "request" not in links and "ask" not in links:
        return False
    for reply in chain[1:]:
        turns = answered.get(reply.step)
        if not turns or not all((_DECLINED.search(turn) or _NOTHING.search(turn)) and not _LOOKING.search(turn)
                                for turn in turns):
            return False
    return True


_NOTHING = re.compile(r"\b(?:nothing|none|nowhere)\b", re.IGNORECASE)  # the other side saying it found none


def _unconditioned(offer: frozenset[str], text: str) -> frozenset[str]:
    """The stems of `offer` (a reply's offers) that its sentences offering what the agent will do
    once the other side gives what it asks for ("As soon as you have it I can look at the
    cancellation", "when you find it I'll update the booking": `_CONDITIONED`) do not hold: such an
    offer is the ask, no new way forward."""
    conditioned = frozenset().union(*(stems(sentence) for sentence in sentences(text)
                                      if _CONDITIONED.search(sentence) is not None and offers_in(sentence)))
    return offer - conditioned if conditioned else offer


# An offer of what the agent will do once the other side gives what it asks for
_CONDITIONED = re.compile(r"\b(?:once|as soon as|when|whenever) you\b"
                          r"|\bif you (?:can )?(?:find|send|share|give|provide|locate|get)\b", re.IGNORECASE)


def _turn(trace: Trace, earlier: LlmOutput, later: LlmOutput, unrecorded: bool,
          unchanged: frozenset[int] = frozenset()) -> bool:
    """Whether reply `later` answers a turn of the other side after reply `earlier` (calls answered
    as before, `unchanged`, may lie between them too)."""
    return _after_input(trace, earlier, later, unchanged) or unrecorded and _in_a_row(earlier, later)


def _asking(trace: Trace) -> frozenset[int]:
    """The steps of the replies that acted: those that record a request, and those a tool call
    directly follows. A span tree or a step counter records a reply's calls only as the tool spans
    after it, a chat message as its `tool_calls`; read by order, the same reply acted in each,
    whoever the recording says asked (a person acting on the reply with tools of its own, too)."""
    steps = trace.steps
    # (steps are numbered from 1: the one after `s` is steps[s.step])
    return frozenset(s.step for s in steps if isinstance(s, LlmOutput)
                     and (s.requests or s.step < len(steps) and steps[s.step].kind == "tool"))


def _unchanged(trace: Trace, asking: frozenset[int] = frozenset()) -> frozenset[int]:
    """The steps of tool calls answered exactly as the same call was answered before (the same call,
    the same result), and of the outputs that asked only for such calls: the agent sent them again
    and saw nothing it had not seen. Calls whose result is not recorded are never among them. An
    output with no text that the calls follow asked for them, whether or not its format records the
    request on the output (a span tree may record the calls only as the tool spans after it)."""
    seen: set[tuple[str, Optional[str]]] = set()
    unchanged: set[int] = set()
    for step in trace.steps:
        if step.kind == "tool" and step.outcome is not None:
            key = (step.call, step.outcome)
            if key in seen:
                unchanged.add(step.step)
            seen.add(key)
    steps = trace.steps
    for step in steps:
        if isinstance(step, LlmOutput) and (step.requests or step.step in asking or not step.has_text):
            answers: list[int] = []  # the calls after it (steps are numbered from 1: the next is steps[step.step])
            while step.step + len(answers) < len(steps) and steps[step.step + len(answers)].kind == "tool":
                answers.append(steps[step.step + len(answers)].step)
            if answers and unchanged.issuperset(answers):
                unchanged.add(step.step)
    return frozenset(unchanged)


def _longest_turns(trace: Trace, unrecorded: bool, unchanged: frozenset[int] = frozenset(),
                   asking: frozenset[int] = frozenset()) -> int:
    """The most replies in a row, no tool call between but calls answered as before (`unchanged`),
    each answering a turn after the one before (`_turn`): the most links a chain of `_restated` can
    have, found without reading a text."""
    longest = run = 0
    earlier: Optional[LlmOutput] = None
    for step in trace.steps:
        kind = step.kind
        if kind == "input" or unchanged and step.step in unchanged:
            continue
        if kind == "tool" or not isinstance(step, LlmOutput) or step.requests or step.step in asking \
                or not step.has_text:
            earlier = None  # (the next reply starts a run afresh)
            continue
        run = run + 1 if earlier is not None and _turn(trace, earlier, step, unrecorded, unchanged) else 0
        if run > longest:
            longest = run
        earlier = step
    return longest


def _stances_of(reply: LlmOutput, read: dict[int, tuple[Stances, "_Acts"]]) -> Stances:
    """The stances `reply` takes, read once with what it does (`_acts_of`)."""
    try:
        return read[reply.step][0]
    except KeyError:
        return _read(reply, read)[0]


def _offers_new(offer: frozenset[str], said: AbstractSet[str]) -> bool:
    """Whether a reply offers something new: the stems of its sentences that propose what the
    agent can do (`offer`, `_stances.offered`: not the sentence that declines) hold at least `_OFFER_NEW`
    stems the conversation had not `said`, and at least `_OFFER_SHARE` of them are such. A
    different way forward each turn (a pickup point, the courier holding the parcel, a refund to
    reorder) is an agent exploring while it holds the rule; the same one offered again in a few
    new words ("I could give you store credit", "I can still offer store credit") is not new."""
    if len(offer) < _OFFER_NEW:  # (most replies offer nothing)
        return False
    new = len(offer - said)
    return new >= _OFFER_NEW and new >= _OFFER_SHARE * len(offer)


_OFFER_NEW = 3  # stems nobody had said that an offer holds when it is new
_OFFER_SHARE = 0.5  # share of an offer's stems, at least, that nobody had said


def _named(text: str) -> set[str]:
    """The content words `text` writes as a name, number or id would be (not all lowercase)."""
    return _words(" ".join(w for w in text.split() if not w.islower()).casefold())


class _Acts(NamedTuple):
    """What a reply does and about what (`_acts_of`)."""

    asks: frozenset[str]  # the stems of its sentences that ask the other side for something
    offers: tuple[frozenset[str], ...]  # the stems of each sentence that offers something
    told: frozenset[str]  # the facts its asking and offering sentences tell
    text: str  # the reply's text (the facts it tells: `facts`, read when asked)
    stems: frozenset[str]  # the stems it says

    @property
    def facts(self) -> frozenset[str]:
        """The facts the reply tells (`_facts.fact_parts`, once per text while a trace is scored)."""
        return fact_parts(self.text)

    def takes_up(self, fresh: AbstractSet[str]) -> bool:
        """Whether the reply says a stem of `fresh` (what the other side brought that nobody had said)
        outside a sentence that acknowledges or says no and a name it calls them by (`_ACKNOWLEDGES`,
        `_stances.says_no`, `_NAME`): an echo is not taken up ("Contractor badges aren't accepted"
        turns the word down, it does not use it). (Read only for a reply that says one at all.)"""
        if self.stems.isdisjoint(fresh):
            return False
        for sentence in sentences(self.text):
            if _ACKNOWLEDGES.search(sentence) is None and not says_no(sentence):
                found = stems(sentence) if _NAME.search(sentence) is None else stems(_NAME.sub(" ", sentence))
                if not found.isdisjoint(fresh):
                    return True
        return False

    @property
    def does(self) -> bool:
        """Whether the reply asks, offers or tells a fact."""
        return bool(self.asks or self.offers or self.facts)


def _acts_of(reply: LlmOutput, read: dict[int, tuple[Stances, _Acts]]) -> _Acts:
    """What `reply` does (`_stances.stances_and_acts`: each sentence read once, with its stances): its
    asks (`_stances.asks`: "could you share your order number?", "I'll need the order number", "once
    you give me the VM- number I can ..."), its offers (`_stances.offers_in`), the facts they tell,
    and the stems it could take up what the other side said with: an acknowledgment ("I understand
    you're a contractor", "I'm sorry about your job") or a name it calls them by ("Thanks, Dario")
    echoes, it does not use. `read` holds each reply's stances and acts, by step, read once."""
    try:
        return read[reply.step][1]
    except KeyError:
        return _read(reply, read)[1]


def _read(reply: LlmOutput, read: dict[int, tuple[Stances, _Acts]]) -> tuple[Stances, _Acts]:
    found, acts = stances_and_acts(reply.text)
    told = fact_parts(reply.text) if acts.acting else frozenset()  # (its facts that its asks and offers hold)
    if told:
        acted = " \n".join(acts.acting)
        told = frozenset(part for part in told if part in acted)
    both = read[reply.step] = (found, _Acts(acts.asks, acts.offers, told, reply.text, found.stems))
    return both


# The other side saying no ("I don't have it", "dont know it", "there's no number")
_DECLINED = re.compile(r"\b(?:not|no|never|nope|cannot|dont|cant|doesnt|didnt|havent|wont|isnt)\b|n't\b",
                       re.IGNORECASE)
# The share of a reply's stems, at most, that nobody had said when it asks or offers the same thing
# again: a reply that asks "shall I proceed?" after telling a new step each time moves on.
_SAYS_NEW = 0.7
_ACT_COMMON = 2  # stems two asks (two offers) have in common when they are about the same thing
_ACTING = frozenset({"request", "offer", "status", "ask", "unheard"})  # links of a chain of the same acts
# A sentence that acknowledges what the other side said (its words echoed, not used)
# ("I completely understand", "I totally get it": an adverb between)
_ACKNOWLEDGES = re.compile(r"\b(?:sorry|apologi[sz]e|I (?:\w+ly |do |really )?(?:understand|hear|see|know|get))\b",
                           re.IGNORECASE)
_NAME = re.compile(r"(?<=[a-z0-9,;:] )[A-Z][a-z]+\b")  # a capitalized word inside a sentence: a name
# The other side saying it will look for something: the conversation waits on them
_LOOKING = re.compile(r"\b(?:I'll|I will|I'm going to|let me|I have to|I need to)\b[^.?!]*?"
                      r"\b(?:look|check|find|locate|search|get back|dig)", re.IGNORECASE)


def _same_act(reply: _Acts, recent: list[_Acts], known: Callable[[], AbstractSet[str]], fresh: AbstractSet[str],
              said: AbstractSet[str] = frozenset()) -> Optional[str]:
    """How `reply` does again what one of the `recent` replies did, whatever else it says, or None:
    "request" when its asks share `_ACT_COMMON` stems with one's (it asks for the same thing),
    "offer" when one of its offers shares as many with one's offers (it offers the same thing),
    "status" when every fact it tells one of them told, and it shares a stem with them (the same
    status, total or plan told again). Not when its asks or offers tell a fact nobody had told
    (`known`: another slot, another amount), nor when it takes up a stem the other side's turns
    brought that nobody had said (`fresh`), outside an acknowledgment or a name."""
    if reply.takes_up(fresh) or reply.told and not reply.told <= known():
        return None
    offers = frozenset().union(*reply.offers)
    for earlier in reversed(recent) if len(reply.stems - said) <= _SAYS_NEW * len(reply.stems) else ():
        if len(reply.asks & earlier.asks) >= _ACT_COMMON:
            return "request"
        if len(offers & frozenset().union(*earlier.offers)) >= _ACT_COMMON:
            return "offer"
    if reply.facts and reply.facts <= frozenset().union(*(earlier.facts for earlier in recent)) \
            and not reply.stems.isdisjoint(frozenset().union(*(earlier.stems for earlier in recent))):
        return "status"
    return None


def _says_again(reply: Stances, recent: list[Stances], subject: Optional[AbstractSet[str]] = None) -> Optional[str]:
    """How `reply` says again what the `recent` replies said (see the module docstring), or None.
    A no or a rule stays on the chain's `subject` (what its first reply's stances were about):
    it shares a stem of it with the reply it restates (a story whose people cannot do one thing
    after another is no refusal restated)."""
    new = reply.stems.difference(*(earlier.stems for earlier in recent))
    if len(new) <= _NOTHING_NEW * len(reply.stems):
        return "again"
    for earlier in reversed(recent):
        common = reply.kinds & earlier.kinds
        if not common:
            continue
        if "sorry" in common:
            return "sorry"
        shared = reply.about & earlier.about
        if shared and (subject is None or not shared.isdisjoint(subject)):
            if "no" in common:
                return "no"
            if "rule" in common:
                return "rule"
        if "ask" in common and len(shared) >= 2:
            return "ask"
    return None


def _same_stance(reply: Stances, earlier: Stances, fresh: AbstractSet[str], subject: AbstractSet[str]) -> Optional[str]:
    """"stance" when `reply` takes again a stance the reply before it took, whatever its words:
    it says no or states a rule (one stance here: a rule is a no given its reason) about the
    chain's `subject`, or apologizes, or asks the other side to wait (about anything), and uses
    none of the stems the other side's turns between them brought (`fresh`: said by nobody
    before): it answered them with what it had said. Asking again is left to `_says_again`:
    nearly every reply of a support agent asks something ("anything else?")."""
    common = (_declining(reply.kinds) & _declining(earlier.kinds)) - {"ask"}
    if not common or not reply.stems.isdisjoint(fresh):
        return None
    if common.isdisjoint(_ANY_SUBJECT) and reply.about.isdisjoint(subject):
        return None
    return "stance"


_ANY_SUBJECT = frozenset({"sorry", "wait"})  # stances that say the same whatever they are about


def _declined_again(text: str, reply: Stances, acts: _Acts, recent: list[Stances], fresh: AbstractSet[str],
                    turns: list[str]) -> Optional[str]:
    """"declined" when `reply` does nothing but say no or state a rule (each of its sentences that
    says anything takes that stance, or apologizes: `_declines_only`), asks for nothing and offers
    nothing, after a reply that said no or stated a rule, while the other side's `turns` between them
    pushed back (they ask or say no: "can't you ...?", "why?", "please, just ...") and the reply
    uses none of the stems those turns brought that nobody had said (`fresh`), nor any stem of the
    `recent` replies: the agent said no again to a side that pressed, in words of its own
    ("non-refundable", then "no reimbursement ... can't be paid back"). Unlike `_same_stance`, its
    subject is not read (a refusal reworded in synonyms shares no word with the one before); its
    words become the chain's subject, in other words, for the replies after it. A reply that shares
    words with the recent ones is read by its subject: a no on another thing drifts. Turns that ask
    for something nobody had named ("can I bring my dog?") bring a new request: an agent declining
    different requests, each for its own reason, is no refusal said again. One that offers or asks
    for anything, or tells a fact nobody had told, moves on."""
    if "no" not in _declining(reply.kinds) or "no" not in _declining(recent[-1].kinds) or acts.asks or acts.offers:
        return None
    if any(not reply.stems.isdisjoint(earlier.stems) for earlier in recent):
        return None  # (it shares words with them: read by its subject, `_same_stance`; a no on another thing drifts)
    if not turns or not reply.stems.isdisjoint(fresh):
        return None
    heard = " \n".join(turns)
    if stances(heard).kinds.isdisjoint(_PUSHING) and _PRESSING.search(heard) is None:
        return None
    if not asked(heard).isdisjoint(fresh):
        return None  # (they asked for something nobody had named: a new request, declined for its own reason)
    return "declined" if _declines_only(text) else None


# The other side pressing without asking or saying no: "just refund it", "make an exception", "seriously",
# "come on", an exclamation
_PRESSING = re.compile(r"\b(?:just|seriously|anyway|exception|unfair|ridiculous|come on|whatever)\b|!")


def _declines_only(text: str) -> bool:
    """Whether every sentence of `text` that says anything (a stem) says no, states a rule or
    apologizes."""
    return all(not found.stems or not _declining(found.kinds).isdisjoint({"no", "sorry"})
               for found in map(stances, sentences(text)))


def _unheard(reply: Stances, earlier: Stances, text: str, earlier_text: str, turns: list[str],
             chain: AbstractSet[str], before: AbstractSet[str] = frozenset()) -> Optional[str]:
    """"unheard" when the other side's `turns` between `earlier` and `reply` say no or ask
    (`_PUSHING`: "I don't have one", "is something missing?") or say again what its turns said in
    words of their own (`_PRESSED` stems in common with `before`, the stems of its earlier turns
    that no reply said: "a sharp pain in my knee", then "still got the sharp pain": its trouble
    stands; a turn answering the agent in the agent's words, "my phone connects fine", says nothing
    again) and say something the agent had not,
    `reply` takes up none of it (no stem of theirs that the chain's replies had not said, `chain`
    holding their stems: the agent's own words said back are no sign it listened; no fact of theirs
    that `earlier` had not told) and it stays on the chain's subject (at least `_ON_SUBJECT` stems
    in common with its replies): it answered them with what it had. `text` and `earlier_text` are the two replies'
    texts; `turns` holds only those said for the first time (a question said again word for word,
    while the agent works toward its answer, brings nothing new to leave unheard). Turns that say
    "ok", "next", "go on" ask nothing, say no to nothing and say nothing again: a guide or a story
    told in parts moves on without taking them up."""
    if not turns:
        return None
    heard = stances(" \n".join(turns))
    theirs = heard.stems - earlier.stems - chain
    if not theirs or not reply.stems.isdisjoint(theirs):
        return None
    if heard.kinds.isdisjoint(_PUSHING) and len(heard.stems & before) < _PRESSED:
        return None
    if len(reply.stems & chain) < _ON_SUBJECT:
        return None
    told = frozenset().union(*map(fact_parts, turns))
    if told and not told.isdisjoint(fact_parts(text) - fact_parts(earlier_text)):
        return None
    return "unheard"


# links that say no again: a reply telling facts nobody had told may stay in a chain by one of them
_REFUSING = frozenset({"no", "rule", "stance", "declined"})
_PUSHING = frozenset({"ask", "no"})  # the other side's stances that push back on a reply
_ON_SUBJECT = 2  # stems an unheard reply shares with the chain's replies


def _declining(kinds: frozenset[str]) -> frozenset[str]:
    """`kinds` with "no" for a rule: a rule restated and a no say the same."""
    return kinds | {"no"} if "rule" in kinds else kinds


_SAYS = {"again": "saying nothing its last replies had not said", "ask": "asking again for the same thing",
         "request": "asking again for the same thing", "offer": "offering the same thing again",
         "status": "telling the same facts again",
         "no": "saying no to the same thing again", "rule": "restating the same rule",
         "sorry": "apologizing again", "stance": "taking the same stance in other words",
         "declined": "saying no again, in other words, to a side that pressed",
         "stall": "doing nothing but ask the other side to wait",
         "unheard": "answering the other side's no, question or trouble said again with none of what it said"}


def _pressed(chain: list[LlmOutput], answered: dict[int, list[str]]) -> bool:
    """Whether the other side pressed one demand throughout the chain: each reply after the first
    answered turns that say again what the turns before them said (`_PRESSED` stems in common with
    them) and do not answer what the reply before them asked for (as many stems in common with its
    asking sentences, `asked`), the first reply answering at least one turn. Answering the agent's
    question, or asking for something else, is no pressing."""
    first = answered[chain[0].step]
    if not first:
        return False
    before = stems(" \n".join(first))
    for earlier, reply in zip(chain, chain[1:]):
        found = stems(" \n".join(answered[reply.step]))
        if len(found & before) < _PRESSED or len(found & asked(earlier.text)) >= _PRESSED:
            return False
        before |= found
    return True


_PRESSED = 2  # stems a turn shares with the turns before it when it presses the same demand


def _what(chain: list[LlmOutput], links: list[str], read: dict[int, tuple[Stances, _Acts]]) -> dict[str, str]:
    """What the chain's replies ask for or offer again, in the words of one of them ("order number"),
    by link kind: the stems that the most of their asks (offers) share, at least two replies'."""
    what: dict[str, str] = {}
    for kind, keep in (("request", asks), ("offer", offers_in)):
        if kind not in links:
            continue
        held = [found.asks if kind == "request" else frozenset().union(*found.offers)
                for found in (_acts_of(reply, read) for reply in chain)]
        counts = Counter(stem for stems_held in held for stem in stems_held)
        most = max(counts.values(), default=0)
        common = {stem for stem, n in counts.items() if n == most} if most >= 2 else set()
        reply = next((r for r, h in zip(chain, held) if h & common), None)  # (the first that holds it)
        words: list[str] = []
        for sentence in sentences(reply.text) if reply is not None else ():
            if keep(sentence):
                for word in _WORD.findall(sentence):
                    if stems(word) & common and word.lower() not in (w.lower() for w in words):
                        words.append(word)
        if words:
            what[kind] = " ".join(words[:_WHAT_WORDS])
    if "status" in links:  # (the facts the most replies told, as one of them wrote them)
        counts = Counter(part for reply in chain for part in _acts_of(reply, read).facts)
        most = max(counts.values(), default=0)
        for reply in chain if most >= 2 else ():
            told = [fact for fact in sorted(facts(reply.text), key=reply.text.find)
                    if any(counts.get(part) == most for part in fact_parts(fact))]
            if told:
                what["status"] = ", ".join(told[:_WHAT_WORDS])
                break
    return what


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]")
_WHAT_WORDS = 4  # words, at most, that name what a chain asks for or offers again


def _restated_finding(chain: list[LlmOutput], links: list[str], *, pressed: bool = False, lacking: bool = False,
                      what: Optional[dict[str, str]] = None) -> Finding:
    steps = tuple(reply.step for reply in chain)
    kinds = [kind for kind in _SAYS if kind in links]
    what = what or {}
    # (an ask read from the stances and one read from what the replies ask for are one ask: one name)
    named = {kind: what.get("request" if kind == "ask" else kind) for kind in kinds}
    how = ", ".join(dict.fromkeys(_SAYS[kind] + (f" ({named[kind]})" if named[kind] else "") for kind in kinds))
    other = ("the other side pressed the same demand again and again, its turns bringing nothing the agent took up"
             if pressed else "the other side said each time that it did not have it or could not give it, bringing "
             "nothing the agent took up" if lacking else "the other side's turns brought nothing it took up")
    return Finding(
        pattern="repeated_reply",
        signal="reasoning_stagnation",
        severity="severe",
        message=f"The agent said the same thing in other words {len(chain)} times in a row ({how}), while "
                f"{other}, no tool call was answered anew and no fact was new ({step_range(steps)}).",
        count=len(chain),
        steps=steps,
        fingerprints=tuple(dict.fromkeys(reply.fingerprint for reply in chain if reply.fingerprint)),
    )


def _after_input(trace: Trace, earlier: LlmOutput, later: LlmOutput,
                 unchanged: frozenset[int] = frozenset()) -> bool:
    """Whether only input (at least one turn of it) lies between two replies, besides calls answered
    as before (`unchanged`)."""
    between = [s for s in trace.steps[earlier.step:later.step - 1] if s.step not in unchanged]
    return bool(between) and all(s.kind == "input" for s in between)


def _in_a_row(earlier: LlmOutput, later: LlmOutput) -> bool:
    """Two replies with nothing between them, the first writing no action in its text."""
    return later.step == earlier.step + 1 and find_text_action(earlier.text) is None


def _answers_input(trace: Trace, earlier: LlmOutput, later: LlmOutput, vocabulary: "_Said",
                   contents: "_Contents", known: "_Said") -> bool:
    """Whether the reply took up a specific fact it was just told: a word the previous
    reply had not, written in the input between them as a name, number or id would be
    (capitals or digits), that nobody had said before that input ("Now Rome." ->
    "Booked ... Rome ..."), or a fact of that input (`_facts.fact_parts`: a number, an amount,
    a date) the previous reply had not told and nobody had before ("mention I cut report time by
    40%" -> a draft saying "cut reporting time by 40%"). That is a conversation going on, not a
    loop; a refusal that echoes the user's plain words ("appreciate help" -> "happy to help") is
    not an answer to anything new, nor one that repeats a number said before."""
    told: set[str] = set()
    told_facts: set[str] = set()
    for step in trace.steps[earlier.step:later.step - 1]:
        text = getattr(step, "text", "") or ""  # only the other side's inputs lie between
        told |= _words(" ".join(w for w in text.split() if not w.islower()).casefold())
        told_facts |= fact_parts(text)
    # (what was said up to the reply before, that reply included, and the task, said before every step)
    if told_facts and (told_facts & fact_parts(later.text)) - known.before(earlier.step) - fact_parts(trace.task or ""):
        return True
    if not told:  # (replies to turns that were not recorded, or named nothing)
        return False
    # (A link below 1.0 rests on both replies' content words, already read: `_same`, `_same_refusal`.)
    new = set(contents.of(later).words) - set(contents.of(earlier).words)  # type: ignore[union-attr]
    return bool((new & told) - vocabulary.before(earlier.step))


def _words(text: str) -> set[str]:
    return set(content_words(text).words)


class _Said:
    """What the conversation's texts (its inputs and the model's outputs, never a tool's result)
    hold, read by `read` (content words, facts), once, step by step, as the scan moves forward."""

    def __init__(self, trace: Trace, read: Callable[[str], AbstractSet[str]], first: str = "") -> None:
        self._steps = trace.steps
        self._read = read
        self._upto = 0
        self._seen: set[str] = set(read(first)) if first else set()  # (`first`: a text said before the steps)

    def before(self, end: int) -> set[str]:
        """What the texts of the first `end` steps hold."""
        while self._upto < end:
            step = self._steps[self._upto]
            text = getattr(step, "text", None) if step.kind != "tool" else None
            if text:
                self._seen |= self._read(text)
            self._upto += 1
        return self._seen


def _tells_news(said: _Said, later: Union[LlmOutput, Observation]) -> bool:
    """Whether reply `later` tells a fact (`_facts.fact_parts`: a fact told again in another form,
    "24-month" and "24 months", is none) nobody had told before it: the agent worked out or found
    something new (another fare, total or date), which a reply restated does not ("the same request
    or refusal by its key nouns and numbers")."""
    told = fact_parts(later.text)
    return bool(told) and not told <= said.before(later.step - 1)


class _Looked:
    """What the trace's tool calls (their arguments) and their results (masked, as `ToolCall.result`
    holds them) say, read step by step as the scan moves forward: a fact is told there when it
    stands there whole, no letter or digit on either side ("15" in "2026-11-15", not in "2150").

    Each distinct text is read once, however often a tool returns it and however many facts are
    asked about: a fact of one run of letters and digits holding a digit (most: "4410", "2024",
    "A1B2C3") stands whole in a text exactly when it is one of the text's runs, looked up in the set
    of them; any other fact ("john.doe@x.com") is searched for in each text once."""

    def __init__(self, trace: Trace) -> None:
        self._steps = trace.steps
        self._upto = 0
        self._texts: list[str] = []  # the distinct texts, in the order they came
        self._seen: set[str] = set()
        self._runs: set[str] = set()  # every whole run of letters and digits holding a digit they hold
        self._searched: dict[str, int] = {}  # other facts: how many texts were searched without finding it

    def told(self, fact: str, end: int) -> bool:
        """Whether the tool calls of the first `end` steps, or their results, tell `fact`."""
        while self._upto < end:
            step = self._steps[self._upto]
            if isinstance(step, ToolCall):
                for text in (step.args, step.result):
                    if text and text not in self._seen:
                        self._seen.add(text)
                        self._texts.append(text)
                        self._runs.update(_RUN_WITH_DIGIT.findall(text))
            self._upto += 1
        if _ONE_RUN.fullmatch(fact) and _HAS_DIGIT.search(fact):
            return fact in self._runs
        start = self._searched.get(fact, 0)
        if start < 0:  # (found before: a text once read stays read)
            return True
        if any(_stands_in(fact, text) for text in self._texts[start:]):
            self._searched[fact] = -1
            return True
        self._searched[fact] = len(self._texts)
        return False


# A whole run of letters and digits (`str.isalnum`, as `_stands_in` reads a fact's edges), and one
# that holds a digit: found from the run's first sign (no letter or digit before it) to its last.
_ONE_RUN = re.compile(r"[^\W_]+")
_RUN_WITH_DIGIT = re.compile(r"(?<![^\W_])[^\W\d_]*\d[^\W_]*")
_HAS_DIGIT = re.compile(r"\d")


def _stands_in(fact: str, text: str) -> bool:
    """Whether `fact` stands in `text` whole: no letter or digit just before or after it."""
    at = text.find(fact)
    while at >= 0:
        end = at + len(fact)
        if (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            return True
        at = text.find(fact, at + 1)
    return False


def _new_facts(told: frozenset[str], step: Union[LlmOutput, Observation], said: _Said,
               looked: _Looked) -> frozenset[str]:
    """The facts of `told` (`step`'s, `_facts.fact_parts`) that nobody had told before it (`said`)
    and that none of the agent's tool calls before it, nor their results, had told (`looked`): a fact
    the agent's tools gave it enters nothing new when a turn relays it ("the advert closed on
    15 nov" after a lookup that returned the closing date) or a reply tells it again ("the run took
    14m02s")."""
    if not told:
        return told
    told = told - said.before(step.step - 1)
    return frozenset(fact for fact in told if not looked.told(fact, step.step - 1)) if told else told


def _same(earlier: LlmOutput, step: LlmOutput, contents: "_Contents", cutoff: float) -> Optional[float]:
    if earlier.fingerprint == step.fingerprint:
        return 1.0
    pair = contents.pair(earlier, step)
    if pair is None:
        return None
    value = similarity(pair[1], pair[0], cutoff)
    return value if value >= cutoff else None


def _same_refusal(earlier: LlmOutput, reply: LlmOutput, contents: "_Contents") -> Optional[float]:
    """The share of content words two declining replies have in common (Jaccard of the word
    sets) when it is at least `_REFUSAL_SIMILARITY`: one refusal restated names the same things
    ("travel insurance", "reservation"); declines of different requests, or a story whose people
    cannot do things, share next to none (0.00-0.06)."""
    pair = contents.pair(earlier, reply)
    if pair is None:
        return None
    a, b = set(pair[1].words), set(pair[0].words)
    value = len(a & b) / len(a | b)
    return value if value >= _REFUSAL_SIMILARITY else None


class _Contents:
    """The content words of each reply compared (`_content`), computed once per reply: a reply
    is compared as the later one, then as the earlier one, and again when both decline."""

    def __init__(self, min_words: int) -> None:
        self._min_words = min_words
        self._of: dict[int, Optional[Words]] = {}

    def of(self, reply: LlmOutput) -> Optional[Words]:
        try:
            return self._of[reply.step]
        except KeyError:
            words = self._of[reply.step] = _content(reply, self._min_words)
            return words

    def pair(self, earlier: LlmOutput, later: LlmOutput) -> Optional[tuple[Words, Words]]:
        """Both replies' content words (earlier, later), or None when either has too few."""
        words = self.of(later)
        earlier_words = self.of(earlier) if words is not None else None
        return None if words is None or earlier_words is None else (earlier_words, words)


def _content(reply: LlmOutput, min_words: int) -> Optional[Words]:
    """The reply's content words when it has at least `min_words` of them (computed only
    for replies that are compared: most follow a tool call and never are)."""
    if len(reply.normalized) < min_words:
        return None
    words = Words(reply.normalized)
    return words if words.count >= min_words else None


def _finding(chain: list[tuple[LlmOutput, float, bool]], threshold: int, cutoff: float,
             contents: _Contents) -> Optional[Finding]:
    if len(chain) < threshold:  # most chains: one reply (called after every step)
        return None
    refusals = any(refusal for _, _, refusal in chain)
    if refusals and len(chain) < _REFUSAL_CHAIN:
        return None
    steps = tuple(reply.step for reply, _, _ in chain)
    if refusals:  # the values of refusal links are shares of words, not text similarities
        lowest = min(value for _, value, refusal in chain[1:] if refusal)
        how = (f"the same refusal in other words (replies that decline, sharing at least {lowest:.2f} of their "
               f"content words, from {_REFUSAL_SIMILARITY:.2f})")
    else:  # the chain was built on the verdict's values (the Jaccard alone when it clears the
        # threshold); the reported similarity is the full max(Jaccard, Indel ratio), computed once
        lowest = min(1.0 if value == 1.0 else similarity(contents.of(earlier), contents.of(reply))  # type: ignore[arg-type]
                     for (earlier, _, _), (reply, value, _) in zip(chain, chain[1:]))  # (a link below 1.0 had both)
        how = ("the same reply" if lowest == 1.0 else
               f"nearly the same reply (similarity >= {lowest:.2f}, threshold {cutoff:.2f})")
    return Finding(
        pattern="repeated_reply",
        signal="reasoning_stagnation",
        severity="severe",
        message=f"The agent gave {how} {len(chain)} times in a row, with only the other side's turns between "
                f"and no tool call ({step_range(steps)}).",
        count=len(chain),
        steps=steps,
        fingerprints=tuple(dict.fromkeys(reply.fingerprint for reply, _, _ in chain if reply.fingerprint)),
        similarity=round(lowest, 4),
    )
