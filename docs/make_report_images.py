"""Takes the README's screenshots of the HTML report (summary and one trace's detail) in headless Chromium.

    python docs/make_report_images.py

Writes the page with `loopmetric report examples -o <tmp>/report.html` (from the repo root, so
names are relative), opens it in Chromium (`apt-get install chromium chromium-driver`) and saves
docs/images/report/summary.png and docs/images/report/detail.png (examples/looping_agent.json).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.html_report import _browser  # noqa: E402
from loopmetric.cli import main as loopmetric  # noqa: E402

DETAIL = "examples/looping_agent.json"


def main(out: Path = ROOT / "docs" / "images" / "report") -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        os.chdir(ROOT)
        loopmetric(["report", "examples", "-o", str(page)])
        driver = _browser(str(Path(tmp) / "profile"))
        if driver is None:
            raise SystemExit("Chromium is not installed: apt-get install -y chromium chromium-driver")
        try:
            driver.set_window_size(1280, 1000)
            driver.get(page.as_uri())
            time.sleep(0.3)
            driver.save_screenshot(str(out / "summary.png"))
            rows = driver.execute_script("return JSON.parse(document.getElementById('rows').textContent)")
            index = [row[0] for row in rows].index(DETAIL)
            driver.get(f"{page.as_uri()}#trace-{index}")
            time.sleep(0.3)
            driver.save_screenshot(str(out / "detail.png"))
        finally:
            driver.quit()
    return [out / "summary.png", out / "detail.png"]


if __name__ == "__main__":
    print("\n".join(map(str, main())))
