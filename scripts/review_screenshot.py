"""The screenshot of the review page in the README (docs/review-page.png):
``textsan serve``'s app on a free loopback port, the bundled sample letter
loaded, one entity kept and one missed span added, as a reviewer would, then
a screenshot taken with Playwright and Debian's chromium.

    python scripts/review_screenshot.py [--pipeline CFG] [--out docs/review-page.png]

Needs ``apt-get install -y chromium`` and the test extra (playwright).
"""

import argparse
import socket
import sys
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.serve.app import create_app
from spacy_textsan.serve.settings import ServeSettings

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "spacy_textsan" / "assets" / "sample.txt"


def serve(pipeline: str | None) -> tuple[uvicorn.Server, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(load_pipeline(pipeline), ServeSettings(port=port, pipeline=pipeline or "default"))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.monotonic() + 120
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the service did not start")
        time.sleep(0.1)
    return server, f"http://127.0.0.1:{port}/"


def select_text(page, needle: str) -> None:
    page.evaluate(
        """(needle) => {
            const walker = document.createTreeWalker(document.getElementById('doc'), NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const i = node.data.indexOf(needle);
                if (i >= 0) {
                    const range = document.createRange();
                    range.setStart(node, i);
                    range.setEnd(node, i + needle.length);
                    getSelection().removeAllRanges();
                    getSelection().addRange(range);
                    return;
                }
            }
            throw new Error('not found: ' + needle);
        }""",
        needle,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pipeline", default=None, help="pipeline config or package (default: the bundled one)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "review-page.png")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    server, url = serve(args.pipeline)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1500, "height": 1000}, device_scale_factor=1)
            page.goto(url)
            page.wait_for_selector("body[data-ready=yes]")
            page.fill("#paste", SAMPLE.read_text(encoding="utf-8"))
            page.click("#review-paste")
            page.wait_for_selector("#doc mark.span")
            page.wait_for_selector("#status[data-state=ok]")
            # a reviewer's first steps: the respondent State kept (public in a judgment), a missed
            # quasi-identifier added (the applicant's job), then the next unreviewed span
            page.locator("#doc mark.span", has_text="Republic of Turkey").click()
            page.keyboard.press("k")
            page.wait_for_selector("#status[data-state=ok]")
            select_text(page, "primary school teacher")
            page.select_option("#add-label", "DEM")
            page.click("#btn-add")
            page.wait_for_selector("#status[data-state=ok]")
            page.keyboard.press("u")
            page.eval_on_selector("#paste", "e => { e.scrollTop = 0; }")
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out), full_page=True)
            browser.close()
    finally:
        server.should_exit = True
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
