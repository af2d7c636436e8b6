"""The labelled traced-agent corpus: scripted agents that loop and that make progress.

    python -m benchmarks.corpus            # re-record benchmarks/corpus/traced.jsonl.gz

Each case is a family (what kind of loop or of progress), an integration it
runs through (deepeval `@observe`, LangGraph, pydantic-ai), a label and a
one-line reason for the label. A loop is an action or a short cycle of actions
repeated at least 3 times without progress (same result, the same error, or
the same reasoning with nothing new observed). The traces are the dicts
deepeval hands to metrics in `evals_iterator`, recorded once and stored
compressed, so the accuracy benchmark scores them without re-running agents.
"""

from __future__ import annotations

import gzip
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from loopmetric._canonical import plain_object

from ._agents import INTEGRATIONS, Call, Script, SubAgent, Turn

CORPUS = Path(__file__).resolve().parent / "corpus" / "traced.jsonl.gz"


@dataclass(frozen=True)
class Case:
    id: str
    family: str
    integration: str
    loop: bool
    reason: str
    script: Script


def _uuid(i: int) -> str:
    return f"{i:08x}-4a1b-4c2d-8e3f-{i * 7919:012x}"


def _think(i: int, topic: str) -> str:
    return f"Step {i}: I will look at {topic} next and note what it tells me about the task."


def _long_thought(variant: int = 0) -> str:
    words = ["still", "again", "once more", "anew"]
    return (f"I {words[variant % 4]} cannot find the configuration file in the repository, so I should search "
            "the settings module and the documentation folder for the database connection string before "
            "changing any code in the application.")


def _loops() -> list[Case]:
    cases: list[Case] = []

    def add(family: str, integration: str, reason: str, steps, final: str = "I could not finish.") -> None:
        cases.append(Case(f"loop-{family}-{integration}-{len(cases)}", family, integration, True, reason,
                          Script(tuple(steps), final=final)))

    for integration in INTEGRATIONS:
        for k in (4, 6):
            add("repeated-call", integration, f"search_web called {k} times with the same query and same result",
                [Turn("Let me search for the answer.", (Call("search_web", {"q": "capital of Australia"},
                                                             "No results found."),))] * k)
        for k in (3, 4):
            add("repeated-error", integration,
                f"charge_card retried {k} times, each an error differing only in a request number",
                [Turn("I will try the payment again.", (Call("charge_card", {"amount": 120, "card": "visa"},
                                                             f"Error: gateway timeout (request {4100 + 17 * i})",
                                                             error=True),)) for i in range(k)])
        for k in (4, 5):
            add("volatile-ids", integration,
                f"get_status polled {k} times; only the request id and timestamp in the result change",
                [Turn("Checking the export status.", (Call("get_status", {"export": "e-7"},
                                                            f"status=pending request_id={_uuid(i)} "
                                                            f"checked_at=2026-03-01T10:00:{i:02d}Z"),))
                 for i in range(k)])
        for a, b in (("find_flight", "find_hotel"), ("read_config", "read_env")):
            add("alternation", integration, f"{a} and {b} alternate 3 times with unchanged results",
                [Turn("", (Call(a, {"city": "Oslo"}, f"{a}: nothing found"),)),
                 Turn("", (Call(b, {"city": "Oslo"}, f"{b}: nothing found"),))] * 3)
        for period in (3, 4):
            tools = ["list_files", "read_file", "run_tests", "git_status"][:period]
            add(f"cycle-{period}", integration, f"the cycle {' -> '.join(tools)} repeats 3 times, same results",
                [Turn("", (Call(t, {"path": "src"}, f"{t} output unchanged"),)) for t in tools] * 3)
        for k in (4, 5):
            progress = [Turn(_think(i, f"document {i}"), (Call("read_doc", {"id": i}, f"Document {i}: "
                                                                  f"{'abcdefgh'[i % 8] * 20}"),))
                        for i in range(60 if integration == "observe" else 40)]
            add("loop-at-end", integration,
                f"{len(progress)} steps of progress, then get_page(7) {k} times with the same result",
                progress + [Turn("Fetching page 7.", (Call("get_page", {"n": 7}, "Page 7 is empty."),))] * k)
        add("error-think-cycle", integration,
            "book_flight fails with the same payment error, the agent notes it, and rebooks, 3 times",
            [Turn("", (Call("book_flight", {"flight": "HAT123", "paid": 833},
                            "Error: payment amount does not add up, total price is 1203, but paid 833",
                            error=True),)),
             Turn("", (Call("think", {"thought": "The payment failed; I will try booking again."}, ""),))] * 3)
    # Only deepeval @observe records LLM outputs without a tool call and nested agents.
    for k in (3, 4, 5):
        add("repeated-reasoning", "observe", f"the same 30-word thought {k} times with no tool call between",
            [Turn(_long_thought(0))] * k)
        add("near-repeated-reasoning", "observe",
            f"a 30-word thought restated {k} times with one word changed, nothing observed between",
            [Turn(_long_thought(i)) for i in range(k)])
    for depth in (3, 4, 5, 6):
        steps: tuple = (Turn("Let me plan the trip."),)
        for _ in range(depth):
            steps = (Turn("I need to plan the trip; I will delegate to the planner."),
                     SubAgent("planner", "Plan a 3-day trip to Rome.", steps))
        add("recursion", "observe", f"the planner agent calls itself with the same input {depth} levels deep",
            [SubAgent("planner", "Plan a 3-day trip to Rome.", steps)])
    for k in (4, 5, 6):
        add("loop-in-sub-agent", "observe", f"the research sub-agent calls fetch_url {k} times with the same result",
            [Turn("I will delegate the research."),
             SubAgent("researcher", "Find the 2025 revenue of ACME.",
                      tuple([Turn("Fetching the report.", (Call("fetch_url", {"url": "https://acme.example/ir"},
                                                                  "403 Forbidden"),))] * k))])
    return cases


def _progress() -> list[Case]:
    cases: list[Case] = []

    def add(family: str, integration: str, reason: str, steps, final: str = "Here is the answer.") -> None:
        cases.append(Case(f"progress-{family}-{integration}-{len(cases)}", family, integration, False, reason,
                          Script(tuple(steps), final=final)))

    cities = ["Paris", "Tokyo", "Lima", "Oslo", "Cairo", "Perth", "Quito", "Hanoi"]
    for integration in INTEGRATIONS:
        for k in (4, 8):
            add("pagination", integration, f"list_orders pages 1-{k}, each page different",
                [Turn("Reading the next page of orders.", (Call("list_orders", {"page": p},
                                                                f"orders {p * 10}-{p * 10 + 9}"),))
                 for p in range(1, k + 1)])
        for statuses in (["queued", "running 30%", "running 70%", "done"],
                         ["queued", "queued", "running", "running 50%", "done"]):
            add("polling-progresses", integration,
                f"get_job polled {len(statuses)} times and the status moves to done",
                [Turn("Checking the job.", (Call("get_job", {"id": 42}, s),)) for s in statuses])
        for k in (4, 6):
            add("templated-outputs", integration,
                f"the same 25-word report template filled for {k} different cities",
                [Turn(f"Here is the weather report for {c}: the temperature is {10 + i} degrees with "
                      f"{'clear' if i % 2 else 'cloudy'} skies, light winds and no rain expected for the rest "
                      "of the afternoon.", (Call("get_weather", {"city": c}, f"{c}: {10 + i}C"),))
                 for i, c in enumerate(cities[:k])])
        for failures in (1, 2):
            add("retry-succeeds", integration, f"upload fails {failures} time(s), then succeeds",
                [Turn("Uploading the file.", (Call("upload", {"file": "a.csv"}, f"Error: timeout {i}",
                                                   error=True),)) for i in range(failures)]
                + [Turn("Uploading the file.", (Call("upload", {"file": "a.csv"}, "uploaded 2 MB"),))])
        # 200-400 spans each: a turn is 2 spans with @observe and pydantic-ai, about 8 in LangGraph.
        for turns in {"observe": (100, 130), "langgraph": (40, 48), "pydantic-ai": (110, 180)}[integration]:
            add("long-healthy-run", integration, f"{turns} distinct search/read steps, every result new",
                [Turn(_think(i, f"source {i}"), (Call("search" if i % 2 else "read", {"q": f"topic {i}"},
                                                      f"result for topic {i}: {i * 37 % 101}"),))
                 for i in range(turns)])
        for k in (5, 6):
            add("distinct-queries", integration, f"search called {k} times with a different query each time",
                [Turn("Searching.", (Call("search", {"q": f"query about {c}"}, f"{c} facts"),))
                 for c in cities[:k]])
        for k in (3, 5):
            add("read-after-edit", integration,
                f"read_file then edit_file {k} times; the file and the edit change each time",
                [Turn("", (Call("read_file", {"path": "a.py"}, f"def f():\n    return {i}\n"),
                           Call("edit_file", {"path": "a.py", "line": 2, "text": f"return {i + 1}"}, "edited")))
                 for i in range(k)])
        add("two-same-then-move-on", integration, "get_price called twice with the same result, then the agent moves on",
            [Turn("Checking the price.", (Call("get_price", {"sku": "X1"}, "19.99"),))] * 2
            + [Turn("Ordering.", (Call("order", {"sku": "X1"}, "order 881 placed"),))])
    for depth in (2, 3, 4):
        def tree(level: int, lo: int, hi: int):
            if level == 0:
                return (Turn(f"Sorting items {lo}-{hi} directly."),)
            mid = (lo + hi) // 2
            return (Turn(f"Splitting items {lo}-{hi}."),
                    SubAgent("sorter", f"Sort items {lo}-{mid}.", tree(level - 1, lo, mid)),
                    SubAgent("sorter", f"Sort items {mid + 1}-{hi}.", tree(level - 1, mid + 1, hi)))
        add("legit-recursion", "observe", f"the sorter calls itself on smaller halves, {depth} levels",
            [SubAgent("sorter", "Sort items 0-63.", tree(depth, 0, 63))])
    for k in (3, 4, 5):
        add("sub-agents-distinct", "observe", f"{k} research sub-agents, each on a different company",
            [SubAgent("researcher", f"Research company {c}.",
                      (Turn(f"Looking up company {c}.", (Call("fetch_url", {"url": f"https://{c}.example"},
                                                             f"{c} revenue {i + 3}M"),)),))
             for i, c in enumerate(["acme", "globex", "initech", "umbrella", "hooli"][:k])])
    return cases


def cases() -> list[Case]:
    return _loops() + _progress()


def record_corpus(path: Path = CORPUS, *, limit: int | None = None) -> list[dict]:
    """Run every case through its integration, store id/family/label/reason/trace."""
    from ._agents import record

    chosen = cases()[:limit] if limit else cases()
    traces = record([(c.id, c.integration, c.script) for c in chosen])
    rows = []
    for case in chosen:
        trace = traces.get(case.id)
        if trace is None:
            raise RuntimeError(f"no trace captured for {case.id}")
        rows.append({"id": case.id, "family": case.family, "integration": case.integration,
                     "loop": case.loop, "reason": case.reason, "trace": trace})
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for row in rows:
            # Objects (LangChain messages, deepeval ToolCalls) are stored as their field dicts,
            # as an exporter would write them, not as repr strings.
            out.write(json.dumps(row, sort_keys=True, default=plain_object) + "\n")
    return rows


def load_corpus(path: Path = CORPUS) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


if __name__ == "__main__":
    rows = record_corpus(limit=int(sys.argv[1]) if len(sys.argv) > 1 else None)
    loops = sum(r["loop"] for r in rows)
    print(f"recorded {len(rows)} cases ({loops} loops, {len(rows) - loops} progress) to {CORPUS}")
