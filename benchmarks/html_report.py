"""The HTML report at scale: time and size for 100, 1,000 and 10,000 traces, and how the page behaves.

    python -m benchmarks.html_report        # writes results/html_report.md

The traces are `benchmarks.throughput`'s typical ones (20-60 spans, about one
in four loops), one file each in a temporary folder. For each count: the wall
time of `loopmetric report FOLDER -o report.html` (one process) against
`loopmetric score FOLDER --json` on the same folder, the page's size, and,
when Chromium is installed (`apt-get install chromium chromium-driver`), what
the page costs in a headless Chromium: load (navigation start to the load
event, the table drawn), filter by verdict, sort by name, and opening the
detail of the last trace (the last detail block parsed, unpacked when gzipped,
and drawn). Also: what a matplotlib SVG timeline per trace would cost instead
of the SVG the page draws from `plot.timeline_data` (why the page draws its own).
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from ._common import markdown_table, parser
from .throughput import typical_trace, write_folder

COUNTS = (100, 1_000, 10_000)


def _timed(argv: list[str]) -> tuple[float, int]:
    from loopmetric.cli import main

    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        status = main(argv)
    return time.perf_counter() - start, status


def _browser(profile: str) -> Optional[Any]:
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_path):
        return None
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1000", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver_path), options=options)


_IN_PAGE = """
const done = arguments[arguments.length - 1];
const nav = performance.getEntriesByType("navigation")[0];
const load = nav.loadEventEnd - nav.startTime;
let t = performance.now();
const verdict = document.getElementById("verdict");
verdict.value = "fail"; verdict.dispatchEvent(new Event("change"));
const filter = performance.now() - t;
const shown = document.getElementById("shown").textContent;
t = performance.now();
document.querySelector("th[data-key='0'] button").click();
const sort = performance.now() - t;
const last = JSON.parse(document.getElementById("rows").textContent).length - 1;
t = performance.now();
location.hash = "#trace-" + last;
(function wait() {
  const name = document.getElementById("detail-name");
  if (name && !document.getElementById("detail-view").hidden) {
    done({load: load, filter: filter, sort: sort, detail: performance.now() - t, shown: shown});
  } else { setTimeout(wait, 2); }
})();
"""


def _in_browser(driver: Any, page: Path) -> dict[str, Any]:
    driver.set_script_timeout(120)
    driver.get(page.as_uri())
    return driver.execute_async_script(_IN_PAGE)


def _matplotlib_per_trace(samples: int = 20) -> tuple[float, float]:
    """Seconds and bytes of one matplotlib SVG timeline, averaged over typical traces."""
    from loopmetric import read_deepeval_trace
    from loopmetric.plot import plot_timeline

    rng = random.Random(0)
    traces = [read_deepeval_trace(typical_trace(rng, i)) for i in range(samples)]
    start, size = time.perf_counter(), 0
    for trace in traces:
        out = io.StringIO()
        plot_timeline(trace).savefig(out, format="svg")
        size += len(out.getvalue().encode("utf-8"))
    return (time.perf_counter() - start) / samples, size / samples


def main(argv: Optional[list[str]] = None) -> str:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--counts", type=int, nargs="+", default=list(COUNTS))
    args = p.parse_args(argv)
    counts = [20, 60] if args.smoke else args.counts
    rows = []
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        driver = None if args.smoke else _browser(str(Path(tmp) / "profile"))
        try:
            for n in counts:
                folder = Path(tmp) / f"traces-{n}"
                folder.mkdir()
                write_folder(folder, n)
                page = Path(tmp) / f"report-{n}.html"
                scored, _ = _timed(["score", str(folder), "--json"])
                reported, _ = _timed(["report", str(folder), "-o", str(page)])
                text = page.read_text(encoding="utf-8")
                packed = 'type="application/gzip+base64"' in text
                row = [f"{n:,}", f"{scored:.1f} s", f"**{reported:.1f} s**", f"{reported / scored:.2f}x",
                       f"**{page.stat().st_size / 1e6:.1f} MB**", "gzip + base64" if packed else "JSON"]
                if driver is not None:
                    seen = _in_browser(driver, page)
                    row += [f"{seen['load']:.0f} ms", f"{seen['filter']:.0f} ms", f"{seen['sort']:.0f} ms",
                            f"{seen['detail']:.0f} ms"]
                else:
                    row += ["-"] * 4
                rows.append(row)
                print(" | ".join(row), flush=True)
        finally:
            if driver is not None:
                driver.quit()
    per_trace, per_size = _matplotlib_per_trace(3 if args.smoke else 20)
    header = ["traces", "`score --json`", "`report -o`", "report / score", "page size", "details embedded as",
              "page load", "filter by verdict", "sort by name", "open the last trace"]
    browser = "Chromium " + (_chromium_version() or "(not installed)")
    text = "\n".join([
        "# HTML report", "",
        "`loopmetric report FOLDER -o report.html` on folders of typical traces (`benchmarks.throughput`: "
        "20-60 spans, about one in four loops), one process, against `loopmetric score FOLDER --json` on the same "
        f"folder. Browser columns: headless {browser}, timed inside the page (`performance.now()`). "
        "Command: `python -m benchmarks.html_report`.", "",
        markdown_table(header, rows), "",
        f"A matplotlib SVG timeline per trace instead (`plot_timeline(trace).savefig(..., format='svg')`, "
        f"mean of {3 if args.smoke else 20} typical traces): {per_trace * 1000:.0f} ms and "
        f"{per_size / 1024:.0f} KiB a trace, so about {per_trace * 10_000 / 60:.0f} min and "
        f"{per_size * 10_000 / 1e9:.1f} GB for 10,000 traces; the page draws the same rows "
        "(`loopmetric.plot.timeline_data`) as SVG in the browser when a trace is opened.", "",
        f"Run on {time.strftime('%Y-%m-%d')}, 2 cores shared with other work, load average "
        f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1 / 5 / 15 min) at the start.", "",
    ])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "html_report.md").write_text(text)
    return text


def _chromium_version() -> Optional[str]:
    import subprocess

    if not shutil.which("chromium"):
        return None
    out = subprocess.run(["chromium", "--version"], capture_output=True, text=True, timeout=60).stdout
    return out.split()[1] if len(out.split()) > 1 else None


if __name__ == "__main__":
    main(sys.argv[1:])
