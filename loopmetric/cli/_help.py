"""What `--help` says beyond the usage: the meaning of each detector flag, the exit codes, two examples.

`MEANINGS` holds one short line per setting of `LoopSettings` and of the guard's
`GuardSettings` (a test checks that every field has one); `epilog(command)` is the
text each subcommand's help ends with.
"""

from __future__ import annotations

import argparse

__all__ = ["EXAMPLES", "GUARD_MEANINGS", "MEANINGS", "epilog", "help_options", "meaning"]

MEANINGS = {
    "threshold": "a trace passes when its score is at least this",
    "repetition_threshold": "repeated_call: this many identical calls (same name and arguments) within --window, "
                            "nothing new learned, is mild; twice it less one is severe",
    "repeated_call_threshold": "repeated_call: this many identical calls (same name and arguments) within "
                               "--window with nothing new learned",
    "similarity_threshold": "two LLM outputs at least this similar (0 to 1) count as the same text",
    "reply_similarity_threshold": "repeated_reply: replies at least this similar (0 to 1) are the same reply",
    "check_tool_repetition": "the tool-call patterns on or off",
    "check_reasoning_stagnation": "the text patterns on or off",
    "check_call_graph_cycles": "call_graph_cycle (a span re-entering itself) on or off",
    "strict_mode": "threshold 1.0, and any score below it becomes 0.0",
    "window": "how many recent tool calls repeats are counted within",
    "repeated_result_threshold": "repeated_result: the same call returning the same result this many times in a row",
    "repeated_error_threshold": "repeated_error: the same call failing with the same error this many times in a row",
    "alternating_calls_threshold": "alternating_calls: a block of 2 or more calls repeated this many times back "
                                   "to back",
    "repeated_text_threshold": "repeated_text: this many equal LLM outputs with nothing new observed between",
    "similar_attempts_threshold": "similar_attempts: one tool called this many times in a row with changed "
                                  "arguments, every result failing the same way",
    "fruitless_changes_threshold": "fruitless_changes: the same check answering the same failure this many times "
                                   "in a row while changes are made between",
    "revisited_calls_threshold": "revisited_calls: this many calls in a row, each one made before, none "
                                 "bringing anything new",
    "rejected_output_threshold": "rejected_output: this many replies in a row each rejected by the harness",
    "text_window": "each LLM output is compared with up to this many earlier ones",
    "min_similarity_words": "shorter LLM outputs count as repeats only when exactly equal",
    "embedder": "Python only: a callable turning a list of texts into vectors, for semantic",
    "semantic": "also look for repetition in meaning (replies, instructions) with an offline embedding model; "
                "needs loopmetric[semantic]",
    "semantic_threshold": "with semantic: replies whose embeddings' cosine is at least this mean the same "
                          "(the default embedder's cut-off)",
    "semantic_instruction_threshold": "with semantic: instructions to a tool at least this close in meaning are "
                                      "one instruction reworded",
    "aggregation": "how the signals combine into the score: geometric, or arithmetic as deepeval's weighted mean",
    "max_cycle_length": "the longest block of calls alternating_calls looks for",
    "mask_volatile_results": "compare results with ids, times and numbers masked",
    "mask_error_numbers": "compare error texts with numbers masked",
}

GUARD_MEANINGS = {  # where the live guard's setting means something else than the metric's
    "window": "how many of the most recent tool calls the call checks look at",
    "repeated_call_threshold": "a call (same tool, same arguments) made this many times within --window, "
                               "whatever it returned",
    "repeated_result_threshold": "a call that returned the same result each of the last this-many times",
    "alternating_calls_threshold": "two calls made in turn (A-B-A-B) for this many A-B cycles",
    "repeated_text_threshold": "this many responses in a row without tool calls whose text is the same",
    "max_cycle_length": "also report cycles of up to this many calls as alternating_calls",
    "mask_volatile_results": "compare results with UUIDs, timestamps and long ids masked",
    "mask_error_numbers": "compare failed results with every number masked",
    "escalate": "nudge the first time a loop is found, stop if the same loop goes on after the nudge",
}


def meaning(settings_class: type, name: str) -> str:
    """What the setting `name` of `settings_class` means, in one line ("" when none is written)."""
    if settings_class.__name__ == "GuardSettings":
        return GUARD_MEANINGS.get(name, MEANINGS.get(name, ""))
    return MEANINGS.get(name, "")


_EXIT_CODES = ("exit codes: 0 ok; 1 the --fail-under gate failed; 2 a usage error, an input that could not "
               "be read, or nothing scored (no trace found)")
EXAMPLES = {
    "score": ("loopmetric score examples/looping_agent.json examples/healthy_agent.json --fail-under 0.9",
              "loopmetric score examples --json --junit loops.xml"),
    "explain": ("loopmetric explain examples/looping_agent.json",
                "loopmetric explain examples/openai_chat.json --repeated-error-threshold none"),
    "guard-replay": ("loopmetric guard-replay examples/pydantic_ai_messages.json",
                     "loopmetric guard-replay examples --repeated-result-threshold 4 --json"),
    "report": ("loopmetric report examples -o /tmp/loops.html",
               "loopmetric report examples --fail-under 0.5 --title 'Nightly agents' -o /tmp/nightly.html"),
    "spark": ("loopmetric spark examples --output /tmp/loops.parquet --overwrite",
              "loopmetric spark examples/looping_agent.json --output /tmp/loops.jsonl --overwrite --fail-under 0.9"),
}
_GATELESS = {"explain": "exit codes: 0 ok; 2 a usage error, an input that could not be read, or no trace found",
             "guard-replay": "exit codes: 0 ok; 2 a usage error, an input that could not be read, or no "
                             "pydantic-ai run found"}


def epilog(command: str) -> str:
    """The exit codes and two examples, the end of `loopmetric COMMAND --help`."""
    first, second = EXAMPLES[command]
    return f"{_GATELESS.get(command, _EXIT_CODES)}\n\nexamples:\n  {first}\n  {second}"


def help_options(command: str) -> dict:
    """Keywords for `commands.add_parser(command, ...)`: the epilog, kept as written."""
    return {"epilog": epilog(command), "formatter_class": argparse.RawDescriptionHelpFormatter}
