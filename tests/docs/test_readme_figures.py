"""Every benchmark figure the README quotes is in a committed result file.

A figure is written as a Markdown link to the result file it comes from, with the
text of the line it is on as the link's title:

    [**64x**](benchmarks/results/speed.md "| distinct | 5,000 |")
    [MISSED by 0.356](benchmarks/results/accuracy.md "real runs, held-out half, F1")

The check: some line of that file contains the title and, as a whole word, the
link's text (bold marks dropped), exactly as the file prints it. Figures are
compared as written, never re-rounded: a target is quoted with the file's own
"met" / "MISSED by ..." verdict, which the benchmark computes unrounded.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests._docs import ALL, PAGES, page

ROOT = Path(__file__).resolve().parents[2]
README = ALL  # the README and every docs page (docs/ links to results as ../benchmarks/results/...)
FIGURE = re.compile(r'\[([^\]\n]+)\]\((?:\.\./)?(benchmarks/results/[^\s)]+)\s+"([^"\n]+)"\)')


def figures(text: str) -> list[tuple[str, str, str]]:
    """(figure, file, line locator) of each tagged figure, in order."""
    return [(m.group(1).replace("**", "").strip(), m.group(2), m.group(3)) for m in FIGURE.finditer(text)]


def section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def quoted(figure: str, line: str) -> bool:
    """`figure` appears in `line` as a whole: not inside a longer number or word."""
    return re.search(r"(?<![\w.])" + re.escape(figure) + r"(?![\w]|\.\d)", line) is not None


def where(figure: str, path: str, locator: str) -> list[str]:
    """The lines of the result file holding the locator and the figure (empty: not found)."""
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    located = [line for line in lines if locator in line]
    assert located, f"{path} has no line with {locator!r}"
    return [line for line in located if quoted(figure, line)]


TAGGED = figures(README)


@pytest.mark.parametrize(("figure", "path", "locator"),
                         [pytest.param(*tag, id=f"{tag[1].rsplit('/', 1)[-1]}:{tag[2]}:{tag[0]}") for tag in TAGGED])
def test_each_figure_is_in_its_result_file(figure, path, locator):
    assert (ROOT / path).is_file(), f"{path} is not committed"
    assert where(figure, path, locator), f"{figure!r} is not on the line of {path} with {locator!r}"


def test_every_row_of_the_benchmark_table_has_a_source():
    rows = [line for line in page("docs/benchmarks.md").splitlines()
            if line.startswith("|") and not line.startswith("|---") and "measured" not in line]
    assert rows
    for row in rows:
        assert figures(row), f"a benchmark row quotes no tagged figure: {row[:80]}"


def test_bold_figures_are_tagged():
    """A figure set in bold is a headline: it must say where it comes from."""
    untagged = FIGURE.sub("", README)
    assert re.findall(r"\*\*[^*\n]*\d[^*\n]*\*\*", untagged) == []


# -- the checker itself -------------------------------------------------------------------------
@pytest.mark.parametrize(("figure", "line", "expected"), [
    pytest.param("64x", "| distinct | 5,000 | 6.2 MB | 64x | 403x |", True, id="cell"),
    pytest.param("0.90", "| 0.897 | 0.90 |", True, id="rounded-cell"),
    pytest.param("0.9", "| 0.90 | 0.897 |", False, id="prefix-of-a-longer-number"),
    pytest.param("4x", "| 64x |", False, id="suffix-of-a-longer-number"),
    pytest.param("1,441", "| 10,000 | 1,441 |", True, id="thousands"),
    pytest.param("met", "F1: 0.897 (target >= 0.90): MISSED by 0.003", False, id="verdict-missed"),
    pytest.param("MISSED by 0.003", "F1: 0.897 (target >= 0.90): MISSED by 0.003", True, id="verdict-quoted"),
    pytest.param("0.3", "MISSED by 0.356", False, id="unrounded-only"),
])
def test_quoted(figure, line, expected):
    assert quoted(figure, line) is expected


def test_figures_are_read_from_links():
    text = 'x [**64x**](benchmarks/results/speed.md "| distinct | 5,000 |") and [a](other.md "t")'
    assert figures(text) == [("64x", "benchmarks/results/speed.md", "| distinct | 5,000 |")]


# -- every figure links to a committed result a command in the repo produces ---------------------
def test_every_result_file_the_readme_links_is_committed_and_says_its_command():
    linked = sorted({path for _, path, _ in TAGGED} | set(re.findall(r"\((?:\.\./)?(benchmarks/results/[^\s)]+)", README)))
    assert linked
    for path in linked:
        assert (ROOT / path).is_file(), f"{path} is linked but not committed"
        if path.endswith(".md"):
            commands = re.findall(r"python -m (benchmarks\.\w+)", (ROOT / path).read_text(encoding="utf-8"))
            assert commands, f"{path} does not say which command wrote it"
            assert all((ROOT / (module.replace(".", "/") + ".py")).is_file() for module in commands), commands


def test_every_image_of_the_readme_is_committed():
    """Each picture of the README and the docs pages, relative to the page it is on."""
    images = [(ROOT / name).parent / image for name, text in PAGES.items()
              for image in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", text)]
    assert images and [image for image in images if not image.is_file()] == []


def test_rates_are_quoted_from_a_result():
    """A throughput ("N traces/s") in prose is a tagged figure, never a number from an uncommitted run."""
    untagged = FIGURE.sub("FIGURE", README)
    assert re.findall(r"\d[\d,.]* traces/s", untagged) == []


def test_the_spark_tables_are_tagged_or_computed_from_the_result():
    text = page("docs/spark.md")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| command"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        if not line.startswith("|-"):
            rows.append(line)
    assert len(rows) == 4
    for row in rows[1:]:
        cells = row.strip("|").split(" | ")[1:]
        assert all(figures(cell) for cell in cells), f"an untagged figure in {row[:80]}"


def test_the_sizing_table_is_computed_from_the_spark_result():
    """core-hours = traces / (traces/s after start-up / cores) / 3,600, as the README says."""
    row = next(line for line in (ROOT / "benchmarks/results/spark.md").read_text().splitlines()
               if line.startswith("| Spark `local[2]`"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    per_core = float(cells[5].replace(",", "")) / int(cells[1])  # after start-up, per core
    text = page("docs/spark.md")
    sized = re.findall(r"^\| (\d+)M \| ([\d.]+) \| ([\d.]+) h[^|]* \| ([\d.]+) (h|min) \| ([\d.]+) \|$", text, re.M)
    assert [int(m[0]) for m in sized] == [1, 10, 100]
    for millions, core_hours, machine, cluster, unit, busy in sized:
        hours = int(millions) * 1e6 / per_core / 3600
        assert _as_written(hours, core_hours) and _as_written(hours / 2, machine)
        assert _as_written(hours / 16 * (60 if unit == "min" else 1), cluster) and _as_written(hours / 24, busy)
    days = re.search(r"\| 100M \| ([\d.]+) \| [\d.]+ h \(([\d.]+) days\)", text)
    assert days and _as_written(100e6 / per_core / 3600 / 2 / 24, days.group(2))


def _as_written(value: float, text: str) -> bool:
    """`value` rounded to the decimals `text` shows is `text`."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return f"{value:.{decimals}f}" == text
