"""MkDocs hooks: the README is the site's first page, and the committed benchmark results and the
CHANGELOG are pages of the site, so that the same Markdown links work on GitHub and in the site.

Pages in docs/ link to results as `../benchmarks/results/X.md` (right on GitHub); the site serves
those files as `results/X.md`. The README links to `docs/X.md`, `docs/images/...` and
`benchmarks/results/...` from the root of the repository; as the site's index they are rewritten."""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def readme_as_index(text: str) -> str:
    """The README with its links made relative to docs/."""
    text = re.sub(r"\]\(docs/", "](", text)
    text = re.sub(r"\]\(benchmarks/results/", "](results/", text)
    return text.replace("](CHANGELOG.md)", "](changelog.md)")


def on_files(files: Files, config) -> Files:
    files.append(File.generated(config, "index.md", content=readme_as_index((ROOT / "README.md").read_text("utf-8"))))
    files.append(File.generated(config, "changelog.md", content=(ROOT / "CHANGELOG.md").read_text("utf-8")))
    for path in sorted(RESULTS.rglob("*")):  # sub-folders too (past results, per-revision runs)
        if path.suffix in (".md", ".png"):
            name = path.relative_to(RESULTS).as_posix()
            files.append(File.generated(config, f"results/{name}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    return markdown.replace("](../benchmarks/results/", "](results/")
