"""`benchmarks.meaning`: the cut-off grid chosen on the design half, checked by hand on small runs."""

from __future__ import annotations

import math

from benchmarks.meaning import cached, choose
from loopmetric import LoopSettings, read_chat_messages

PRESS = ["Can you make an exception?", "Please, it matters a lot.", "Is there no other way?", "Please try anyway."]


def pressed(prefix: str) -> list:
    """Four replies starting with `prefix`, each pressed by the other side with nothing new."""
    messages = [{"role": "user", "content": "Please add travel insurance to my booking."}]
    for n, push in enumerate(PRESS):
        messages += [{"role": "assistant", "content": f"{prefix} reply number {'abcd'[n]}."},
                     {"role": "user", "content": push}]
    return messages


def by_prefix(cosines: dict[str, float]):
    """Replies sharing a first word have the cosine given for it; each text its own axis besides."""
    axes: dict[str, int] = {}

    def embed(texts):
        out = []
        for text in texts:
            shared = cosines.get(text.split()[0], 0.0)
            axis = axes.setdefault(text, len(axes))
            vector = [0.0] * 64
            vector[0 if text.split()[0] == "Loop" else 1] = math.sqrt(shared)
            vector[2 + axis] = math.sqrt(1 - shared)
            out.append(vector)
        return out

    return embed


def test_choose_takes_the_best_design_f1_that_keeps_the_words_precision_and_the_higher_cut_on_a_tie():
    rows = [
        # a loop the words miss, whose replies are at cosine 0.72: found from cut 0.70 down
        {"id": "loop", "loop": True, "lm": False, "trace": read_chat_messages(pressed("Loop"))},
        # a healthy run at cosine 0.62: a false alarm from cut 0.60 down
        {"id": "fine", "loop": False, "lm": False, "trace": read_chat_messages(pressed("Fine"))},
        # a loop the words find: their precision is 1.0, which the choice must keep
        {"id": "found", "loop": True, "lm": True, "trace": read_chat_messages(pressed("Other"))},
    ]
    settings = LoopSettings(semantic=True, embedder=by_prefix({"Loop": 0.72, "Fine": 0.62}))
    chosen, grid = choose(rows, settings)
    # 0.65 and 0.70 both give F1 1.0 at precision 1.0 (0.55 and 0.60 add the false alarm, 0.75+
    # miss the loop: F1 2/3); no instructions, so every instruction cut ties and 0.98 is taken.
    assert chosen == (0.70, 0.98)
    cells = {(row[0], row[1]): row[2:] for row in grid}
    assert cells[("0.60", "0.90")] == ["2/1/0", "0.667", "0.800"]
    assert cells[("0.70", "0.90")] == ["2/0/0", "1.000", "1.000"]
    assert cells[("0.75", "0.90")] == ["1/0/1", "1.000", "0.667"]


def test_choose_says_none_when_every_cut_costs_precision():
    rows = [{"id": "fine", "loop": False, "lm": False, "trace": read_chat_messages(pressed("Fine"))},
            {"id": "found", "loop": True, "lm": True, "trace": read_chat_messages(pressed("Other"))}]
    chosen, _ = choose(rows, LoopSettings(semantic=True, embedder=by_prefix({"Fine": 0.99})))
    assert chosen is None


def test_cached_embeds_each_text_once():
    seen: list[list[str]] = []

    def embed(texts):
        seen.append(list(texts))
        return [[float(len(t))] for t in texts]

    lookup = cached(embed)
    assert lookup(["a", "bb", "a"]) == [[1.0], [2.0], [1.0]]
    assert lookup(["bb", "ccc"]) == [[2.0], [3.0]]
    assert seen == [["a", "bb"], ["ccc"]]
