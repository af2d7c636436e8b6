"""An Inspect AI task scored by loopmetric's `loop_score()`, offline.

The model is Inspect's `mockllm` with scripted outputs (no LLM, no API key): for each sample it
asks for the job status as many times as the sample's input says, then answers; Inspect's own
`generate()` runs the tool calls. One sample loops (6 polls), one does not (1 poll).

    pip install -e ".[inspect]"
    python examples/inspect_task.py            # writes its log to ./logs
    inspect eval examples/inspect_task.py --model mockllm/model   # the same task from Inspect's CLI
"""

from __future__ import annotations

from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool

from loopmetric.integrations.inspect_ai import loop_score


@tool
def get_job_status():
    async def execute(job_id: str) -> str:
        """Return the status of a job.

        Args:
            job_id: The job.
        """
        return "running"

    return execute


def scripted(messages, tools, tool_choice, config) -> ModelOutput:
    """Asks for the job status N times (N: the sample's input), then answers."""
    polls = int(messages[0].text)
    if sum(message.role == "tool" for message in messages) < polls:
        output = ModelOutput.for_tool_call("mockllm/model", "get_job_status", {"job_id": "42"})
    else:
        output = ModelOutput.from_content("mockllm/model", "The job is still running.")
    # mockllm counts tokens with tiktoken, which downloads its tables, unless the usage is given
    output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return output


@task
def pollers() -> Task:
    return Task(dataset=[Sample(input="6", id="loops"), Sample(input="1", id="healthy")],
                solver=[use_tools(get_job_status()), generate()], scorer=loop_score(),
                model=get_model("mockllm/model", custom_outputs=scripted))


if __name__ == "__main__":
    [log] = eval(pollers(), display="none")
    for sample in log.samples:
        score = sample.scores["loop_score"]
        print(sample.id, score.value, score.metadata["success"], score.explanation)
    print({name: metric.value for name, metric in log.results.scores[0].metrics.items()})
    print("log:", log.location)
