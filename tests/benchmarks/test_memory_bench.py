"""`benchmarks.memory` on small files and depths: it runs, writes its page, and the figures hold
(no timing; memory only as a ratio with a generous bound)."""

from __future__ import annotations

import re

from benchmarks import memory


def test_memory_benchmark_writes_its_figures(tmp_path):
    out = tmp_path / "memory.md"
    text = memory.main(["--size", "3", "--quick", "--output", str(out)])
    assert out.read_text() == text
    assert "`uptime` before: `" in text and "load average" in text
    for shape in ("OpenAI chat", "deepeval trace dict", "OTLP JSON"):
        row = next(line for line in text.splitlines() if line.startswith(f"| {shape} |"))
        ratio = float(re.search(r"\| \d+ \((\d+\.\d)x\) \| \d+ \| (yes|no) \|$", row).group(1))
        assert ratio < 15, row  # 3 MB files: the constant's noise dominates; 50 MB figures are in results/
    depth_rows = [line for line in text.splitlines() if re.match(r"\| [\d,]+ \| (loop|healthy) \|", line)]
    assert len(depth_rows) == 4 and all(" | yes | " in line for line in depth_rows)
    assert all(("FAIL" in line) == ("| loop |" in line) for line in depth_rows)
    assert "JSON nested more than 1,000,000 levels deep" in text and "no traceback" in text
    jobs = re.search(r"one file each: (\d+) reports and (\d+) messages .*`--jobs 2`: (yes|\*\*no\*\*)\.", text)
    assert jobs and int(jobs.group(1)) > 103 and jobs.group(3) == "yes", text
