"""The research benchmarks' formats: the whole expected event list, field by field, one table per
format. Small hand-written samples in each format as its harness writes it (the field names and
shapes of the real files under ../shared/trajectories), and one real file of each checked on its
first events against the fields of the file itself (skipped when ../shared is absent)."""

from __future__ import annotations

import json

import pytest

from loopmetric import read_trace
from loopmetric._canonical import mask_error
from loopmetric.readers import detect_format, load_traces
from tests.conftest import shared_path
from tests.readers._events import asked, events, read_as


def _read(data, fmt, source=None):
    """`data` recognised as `fmt`, read from its JSON text; its source is `source` (the format's name
    unless its rows are read as chat messages)."""
    assert detect_format(data) == fmt
    trace = read_trace(json.dumps(data))
    assert trace.source == (source or fmt)
    return trace


def _first(path, count):
    [loaded] = [t for t in load_traces(str(path))][:1]
    assert loaded.error is None, loaded.error
    return loaded.trace, events(loaded.trace, spans=False)[:count]


# -- SWE-agent .traj --------------------------------------------------------------------------------

def _step(thought, action, observation, **more):
    return {"thought": thought, "action": action, "observation": observation, "response": thought,
            "state": '{"open_file": "n/a", "working_dir": "/repo"}', **more}


SWE = [
    pytest.param([_step("Look first.", "ls -la\n", "a.py\nb.py"), _step("Run them.", "pytest -x tests", "1 failed")], [
        ("llm", "Look first.", None, None, None), ("tool", "ls", {"command": "ls -la"}, "a.py\nb.py", False),
        ("llm", "Run them.", None, None, None), ("tool", "pytest", {"command": "pytest -x tests"}, "1 failed", False),
    ], id="thought-then-the-command-named-by-its-first-word-observation-its-result"),
    pytest.param([{"response": "Edit it.", "action": "edit 1:1\nx = 1\nend_of_edit\n", "observation": "[File: a.py]"}], [
        ("llm", "Edit it.", None, None, None),
        ("tool", "edit", {"command": "edit 1:1\nx = 1\nend_of_edit"}, "[File: a.py]", False),
    ], id="a-step-without-thought-reads-its-response"),
    pytest.param([_step("Hmm.", "", "Your output was not formatted correctly.")], [
        ("llm", "Hmm.", None, None, None), ("input", "harness", "Your output was not formatted correctly."),
    ], id="no-action-the-observation-is-the-harness-speaking"),
    pytest.param([_step("Hmm.", "ls", "Your output was not formatted correctly.")], [
        ("llm", "Hmm.", None, None, None), ("tool", "ls", {"command": "ls"}, "Your output was not formatted correctly.",
                                            False),
    ], id="twin-with-an-action-the-observation-is-its-result"),
]


@pytest.mark.parametrize("steps, expected", SWE)
def test_swe_agent_conformance(steps, expected):
    trace = read_as({"environment": "swe_main", "trajectory": steps, "history": [], "info": {}}, "swe-agent")
    assert events(trace, spans=False) == expected
    assert (trace.notes, trace.spans, asked(trace)) == ((), (), [()] * len(steps))


def test_a_real_swe_agent_traj_conforms_on_its_first_steps():
    path = shared_path("trajectories", "sweagent-java-multi-swe-bench", "20240825_SWE-agent_deepseek-coder-v2", "trajs",
                       "apache__dubbo-10638.traj")
    steps = json.loads(path.read_text())["trajectory"][:2]
    _, first = _first(path, 4)
    assert first == [row for s in steps for row in (
        ("llm", s["thought"], None, None, None),
        ("tool", s["action"].split()[0], {"command": s["action"].strip()}, s["observation"], False))]


# -- tau-bench ------------------------------------------------------------------------------------

def _tau_call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


TAU = [
    pytest.param([
        {"role": "system", "content": "# Airline Agent Policy"}, {"role": "user", "content": "Book me a flight."},
        {"role": "assistant", "content": "Your user id?"}, {"role": "user", "content": "mia_li_3668"},
        {"role": "assistant", "content": None, "tool_calls": [_tau_call("c1", "get_user_details", {"user_id": "mia_li_3668"})]},
        {"role": "tool", "tool_call_id": "c1", "name": "get_user_details", "content": '{"name": "Mia"}'},
        {"role": "assistant", "content": None, "tool_calls": [_tau_call("c2", "get_user_details", {"user_id": "mia"})]},
        {"role": "tool", "tool_call_id": "c2", "name": "get_user_details", "content": "Error: user not found"},
        {"role": "assistant", "content": "Booked."},
    ], [
        ("llm", "Your user id?", None, None, None), ("input", "user", "mia_li_3668"),
        ("llm", "", None, None, None), ("tool", "get_user_details", {"user_id": "mia_li_3668"}, '{"name": "Mia"}', False),
        # a result that says it failed is a failure (no flag in the format: inferred from its text)
        ("llm", "", None, None, None), ("tool", "get_user_details", {"user_id": "mia"}, "Error: user not found", True),
        ("llm", "Booked.", None, None, None),
    ], id="record-traj-user-turns-calls-by-id-a-result-saying-error-is-a-failure-its-twin-a-success"),
]


@pytest.mark.parametrize("traj, expected", TAU)
def test_tau_bench_conformance(traj, expected):
    # tau-bench records are read as their chat messages (the trace's source says so)
    trace = _read([{"task_id": 7, "reward": 0.0, "info": {}, "traj": traj, "trial": 0}], "tau-bench", "chat")
    assert events(trace, spans=False) == expected
    assert trace.task == "Book me a flight." and trace.notes == ()


def test_a_real_tau_bench_record_conforms_on_its_first_turns():
    path = shared_path("trajectories", "tau-bench-gpt4o-airline", "gpt-4o-airline.json")
    traj = json.loads(path.read_text())[0]["traj"]
    trace, first = _first(path, 2)
    assert [m["role"] for m in traj[:5]] == ["system", "user", "assistant", "user", "assistant"]
    assert first == [("llm", traj[2]["content"], None, None, None), ("input", "user", traj[3]["content"])]
    assert trace.task == traj[1]["content"]


# -- tau2-bench -----------------------------------------------------------------------------------

def _tau2(role, **fields):
    return {"role": role, "turn_idx": None, "timestamp": "2025-06-01T10:00:00", **fields}


TAU2 = [
    pytest.param([
        _tau2("assistant", content="Hi! How can I help you today?"),
        _tau2("user", content="My data is slow.", usage={"completion_tokens": 9, "prompt_tokens": 200}, cost=0.001),
        _tau2("assistant", tool_calls=[{"id": "c1", "name": "get_customer_by_phone", "arguments": {"phone_number": "555"},
                                        "requestor": "assistant"}], usage={"completion_tokens": 22, "prompt_tokens": 640},
              cost=0.003),
        _tau2("tool", id="c1", content='{"customer_id": "C1"}', requestor="assistant", error=False),
        _tau2("user", content="I turned it off.", tool_calls=[{"id": "u1", "name": "toggle_airplane_mode", "arguments": {},
                                                                  "requestor": "user"}]),
        _tau2("tool", id="u1", content="Airplane mode: OFF", requestor="user", error=False),
        _tau2("assistant", tool_calls=[{"id": "c2", "name": "refuel_data", "arguments": {"gb": 2}, "requestor": "assistant"}],
              usage={"completion_tokens": 15, "prompt_tokens": 700}),
        _tau2("tool", id="c2", content="Line is suspended.", requestor="assistant", error=True),
        _tau2("assistant", content="Your line is suspended.", usage={"completion_tokens": 8, "prompt_tokens": 720}),
    ], [
        ("llm", "Hi! How can I help you today?", None, None, None), ("input", "user", "My data is slow."),
        ("llm", "", 640.0, 22.0, 0.003), ("tool", "get_customer_by_phone", {"phone_number": "555"}, '{"customer_id": "C1"}',
                                         False),
        ("input", "user", "I turned it off."), ("tool", "toggle_airplane_mode", {}, "Airplane mode: OFF", False),
        ("llm", "", 700.0, 15.0, None), ("tool", "refuel_data", {"gb": 2}, mask_error("Line is suspended."), True),
        ("llm", "Your line is suspended.", 720.0, 8.0, None),
    ], id="flat-calls-paired-by-id-the-users-own-calls-error-flag-usage-cost-beside-it"),
]


@pytest.mark.parametrize("messages, expected", TAU2)
def test_tau2_bench_conformance(messages, expected):
    trace = _read({"info": {}, "tasks": [], "simulations": [{"id": "s", "task_id": "t", "messages": messages}]},
                  "tau2-bench")
    assert events(trace, spans=False) == expected
    assert trace.notes == ()


def test_a_real_tau2_bench_simulation_conforms_on_its_first_turns():
    path = shared_path("trajectories", "tau2-bench-telecom-gpt41", "gpt-4.1_telecom_default_gpt-4.1_1trials.json")
    messages = json.loads(path.read_text())["simulations"][0]["messages"]
    loaded = next(iter(load_traces(str(path))))
    first = events(loaded.trace, spans=False)[:3]
    usage = messages[2]["usage"]
    assert [m["role"] for m in messages[:3]] == ["assistant", "user", "assistant"]
    assert first == [("llm", messages[0]["content"], None, None, float(messages[0]["cost"])),
                     ("input", "user", messages[1]["content"]),
                     ("llm", messages[2]["content"], float(usage["prompt_tokens"]), float(usage["completion_tokens"]),
                      messages[2]["cost"])]


# -- InterCode ------------------------------------------------------------------------------------

INTERCODE = [
    pytest.param({"actions": ["ls", "python3 crackme.py", "submit picoCTF{x}"],
                  "observations": ["crackme.py\n", "Traceback (most recent call last): ...", "Wrong flag"],
                  "rewards": [0, 0, 0], "valid_action": [True, False, True]}, [
        ("tool", "ls", {"command": "ls"}, "crackme.py\n", False),
        ("tool", "python3", {"command": "python3 crackme.py"}, mask_error("Traceback (most recent call last): ..."), True),
        ("tool", "submit", {"command": "submit picoCTF{x}"}, "Wrong flag", False),
    ], id="each-turn-a-call-an-invalid-action-its-observation-as-the-error"),
    pytest.param({"actions": ["cat flag.txt"], "observations": ["cat: flag.txt: No such file or directory"],
                  "rewards": [0], "valid_action": [True]}, [
        ("tool", "cat", {"command": "cat flag.txt"}, "cat: flag.txt: No such file or directory", True),
    ], id="a-valid-action-whose-output-says-it-failed-is-a-failure-inferred-from-its-text"),
]


@pytest.mark.parametrize("history, expected", INTERCODE)
def test_intercode_conformance(history, expected):
    trace = _read({"15": {"environment": "ic_ctf", "task_id": "15", "query": "crackme.py", "turn_history": history,
                          "summary": "{}"}}, "intercode")
    assert events(trace, spans=False) == expected
    assert (trace.task, trace.notes, [s for s in trace.steps if s.kind == "llm"]) == ("crackme.py", (), [])


def test_a_real_intercode_run_conforms_on_its_first_turns():
    path = shared_path("trajectories", "intercode-ctf-gpt4", "ic_ctf_multiturn_gpt-4_10_turns.json")
    first_run = next(iter(json.loads(path.read_text()).values()))
    history = first_run["turn_history"]
    loaded = next(iter(load_traces(str(path))))
    expected = []
    for action, observation, valid in list(zip(history["actions"], history["observations"], history["valid_action"]))[:3]:
        expected.append(("tool", action.split()[0], {"command": action.strip()},
                         observation if valid else mask_error(observation), not valid))
    assert events(loaded.trace, spans=False)[:3] == expected
    assert loaded.trace.task == first_run["query"]


# -- MINT -----------------------------------------------------------------------------------------

MINT_PROMPT = ("You will use an interactive coding environment. Write code in <execute> ... </execute> to run it, "
               "or give the answer as <solution> ... </solution>.")
EXECUTE = "print(goto(\"cabinet 1\"))"
SEEN = "Observation:\nOn the cabinet 1, you see a mug 2.\nYou have 4 steps left and 2 chances to propose solution left.\n"
MINT = [
    pytest.param(MINT_PROMPT, SEEN, [
        ("llm", f"Assistant:\n<thought>\nLook in the cabinet.\n</thought>\n<execute>\n{EXECUTE}\n</execute>\n",
         None, None, None),
        ("tool", "execute", {"input": EXECUTE}, SEEN, False, False, "text action <execute> declared in the first user prompt"),
    ], id="an-execute-block-declared-by-the-task-prompt-answered-by-the-observation"),
    pytest.param("Help the user.", "Thanks, that is all.", [
        ("llm", f"Assistant:\n<thought>\nLook in the cabinet.\n</thought>\n<execute>\n{EXECUTE}\n</execute>\n",
         None, None, None),
        ("input", "user", "Thanks, that is all.", ""),
    ], id="twin-undeclared-markup-answered-by-a-person-is-text"),
]


@pytest.mark.parametrize("prompt, answer, expected", MINT)
def test_mint_conformance(prompt, answer, expected):
    reply = f"Assistant:\n<thought>\nLook in the cabinet.\n</thought>\n<execute>\n{EXECUTE}\n</execute>\n"
    record = {"state": {"history": [{"role": "user", "content": prompt}, {"role": "assistant", "content": reply},
                                    {"role": "user", "content": answer}],
                        "finished": False, "success": False, "agent_action_count": {}, "token_counter": {}},
              "task": {"task_name": "alfworld"}}
    trace = _read(record, "mint")
    assert events(trace, spans=False, flags=True) == expected
    assert (trace.task, trace.notes) == (prompt, ())


def test_a_real_mint_record_conforms_on_its_first_turns():
    path = shared_path("trajectories", "mint-alfworld-gpt4", "results.sample100.seed0.jsonl")
    history = json.loads(path.read_text().splitlines()[0])["state"]["history"]
    loaded = next(iter(load_traces(str(path))))
    first = events(loaded.trace, spans=False)[:2]
    assert first[0] == ("llm", history[1]["content"], None, None, None)
    assert first[1][:2] == ("tool", "execute") and first[1][3:] == (history[2]["content"], False)


# -- Magentic-One (group chat) --------------------------------------------------------------------

MAGENTIC = [
    pytest.param([
        {"role": "human", "content": "Where can I take classes near the NYSE?"},
        {"role": "Orchestrator (thought)", "content": "Initial plan: search, then verify."},
        {"role": "Orchestrator (-> WebSurfer)", "content": "Search for martial arts schools near the NYSE."},
        {"role": "WebSurfer", "content": "I typed 'martial arts NYSE' into the search box."},
        {"role": "Orchestrator (-> WebSurfer)", "content": "Search for martial arts schools near the NYSE."},
        {"role": "WebSurfer", "content": "I typed 'martial arts NYSE' into the search box."},
        {"role": "Orchestrator (termination condition)", "content": "No agent selected."},
    ], [
        ("llm", "Initial plan: search, then verify.", None, None, None),
        ("llm", "", None, None, None),
        ("tool", "WebSurfer", {"instruction": "Search for martial arts schools near the NYSE."},
         "I typed 'martial arts NYSE' into the search box.", False),
        ("llm", "", None, None, None),
        ("tool", "WebSurfer", {"instruction": "Search for martial arts schools near the NYSE."},
         "I typed 'martial arts NYSE' into the search box.", False),
        ("input", "orchestrator (termination condition)", "No agent selected."),
    ], [(), (("WebSurfer", {"instruction": "Search for martial arts schools near the NYSE."}),),
        (("WebSurfer", {"instruction": "Search for martial arts schools near the NYSE."}),)],
        id="a-delegation-is-a-call-answered-by-the-agent-it-names-thoughts-are-replies"),
    pytest.param([
        {"role": "human", "content": "Find the cheapest flight to Oslo."},
        {"role": "Orchestrator (-> WebSurfer)", "content": "Search flights to Oslo."},
        {"role": "Coder", "content": "I could write a script for that."},
        {"role": "WebSurfer", "content": "Cheapest: 120 EUR on Tuesday."},
    ], [
        ("llm", "", None, None, None),  # the call stands after the reply that asked for it, its result its agent's
        ("tool", "WebSurfer", {"instruction": "Search flights to Oslo."}, "Cheapest: 120 EUR on Tuesday.", False),
        ("input", "coder", "I could write a script for that."),
    ], [(("WebSurfer", {"instruction": "Search flights to Oslo."}),)],
        id="another-agent-speaking-before-the-one-named-is-input-not-the-delegations-result"),
    pytest.param([
        {"role": "human", "content": "Sum column B."},
        {"role": "Orchestrator (Thought)", "content": "The coder can do it."},  # the channel in any case
        {"role": "Orchestrator (-> Coder)", "content": "Sum column B of data.csv."},
        {"role": "Coder", "content": "42"},
    ], [
        ("llm", "The coder can do it.", None, None, None),
        ("llm", "", None, None, None),
        ("tool", "Coder", {"instruction": "Sum column B of data.csv."}, "42", False),
    ], [(), (("Coder", {"instruction": "Sum column B of data.csv."}),)],
        id="a-thought-channel-written-in-capitals-is-still-the-orchestrators-reply"),
]


@pytest.mark.parametrize("history, expected, requests", MAGENTIC)
def test_magentic_one_conformance(history, expected, requests):
    trace = _read({"history": history, "question": history[0]["content"], "ground_truth": ""}, "magentic-one")
    assert events(trace, spans=False) == expected
    assert (asked(trace), trace.task, trace.notes) == (requests, history[0]["content"], ())


def test_a_real_magentic_one_log_conforms_on_its_first_messages():
    path = shared_path("trajectories", "whoandwhen-magentic-one", "Hand-Crafted", "1.json")
    history = json.loads(path.read_text())["history"]
    loaded = next(iter(load_traces(str(path))))
    assert [m["role"] for m in history[:4]] == ["human", "Orchestrator (thought)", "Orchestrator (thought)",
                                                "Orchestrator (-> WebSurfer)"]
    assert events(loaded.trace, spans=False)[:3] == [
        ("llm", history[1]["content"], None, None, None), ("llm", history[2]["content"], None, None, None),
        ("llm", "", None, None, None)]
    assert asked(loaded.trace)[2][0] == ("WebSurfer", {"instruction": history[3]["content"]})
