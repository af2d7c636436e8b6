"""A pydantic-evals `Dataset` scored by loopmetric's `LoopEvaluator`, offline.

Two pydantic-ai agents on a scripted `FunctionModel` (no LLM, no API key): one polls a job that
stays "running" six times, one polls once and answers. logfire records their spans in this
process and sends nothing; the evaluator reads each case's spans (`ctx.span_tree`). The same
dataset is then written to a YAML file and read back with the evaluator as a spec.

    pip install -e ".[pydantic-evals]"
    python examples/pydantic_evals_dataset.py
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import logfire
from pydantic_ai import Agent
from pydantic_ai.capabilities import Instrumentation
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from pydantic_evals import Case, Dataset

from loopmetric.integrations.pydantic_evals import LoopEvaluator

logfire.configure(send_to_logfire=False, console=False)  # record spans in this process, send nothing


def poller(polls: int) -> Agent:
    """An agent whose model asks for the job status `polls` times, then answers."""

    def model(messages, info):
        returned = sum(part.part_kind == "tool-return" for message in messages for part in message.parts)
        if returned < polls:
            return ModelResponse(parts=[ToolCallPart("get_job_status", {"job_id": "42"})])
        return ModelResponse(parts=[TextPart("The job is still running.")])

    agent = Agent(FunctionModel(model), name="poller", capabilities=[Instrumentation()])

    @agent.tool_plain
    def get_job_status(job_id: str) -> str:
        """Return the status of a job."""
        return "running"

    return agent


def task(polls: int) -> str:
    return poller(polls).run_sync("Is job 42 done?").output


def main() -> None:
    dataset = Dataset[int, str, object](name="pollers", evaluators=[LoopEvaluator()],
                                        cases=[Case(name="loops", inputs=6), Case(name="healthy", inputs=1)])
    report = dataset.evaluate_sync(task, progress=False)
    report.print(include_reasons=True, include_durations=False)

    with tempfile.TemporaryDirectory() as folder:  # the evaluator as a spec in a dataset file
        path = Path(folder) / "pollers.yaml"
        dataset.evaluators = [LoopEvaluator(threshold=0.7, settings={"window": 30})]
        dataset.to_file(path, custom_evaluator_types=[LoopEvaluator])
        print(re.search(r"^evaluators:\n(?:[ -].*\n)*", path.read_text(), re.M).group().rstrip())
        again = Dataset[int, str, object].from_file(path, custom_evaluator_types=[LoopEvaluator])
        for case in again.evaluate_sync(task, progress=False).cases:
            print(case.name, case.scores["loop_score"].value, case.assertions["no_loops"].value)


if __name__ == "__main__":
    main()
