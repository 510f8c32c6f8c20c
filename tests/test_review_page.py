"""The review page of ``textsan serve`` and the page of ``textsan visualize``,
driven in a real headless browser (Playwright with Debian's ``chromium``)
against the real service on a free loopback port, with the rules-only
pipeline: load a document, review its spans with the keyboard and the
buttons, add a missed span by selecting text, export, and check the exported
files (the training file through ``textsan convert``)."""

import json
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
import spacy
import uvicorn
from playwright.sync_api import Page, expect, sync_playwright
from spacy.tokens import DocBin
from typer.testing import CliRunner

from spacy_textsan.cli import app as cli_app
from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.serve.app import create_app
from spacy_textsan.serve.settings import ServeSettings

CHROMIUM = "/usr/bin/chromium"
FIX = Path(__file__).parent / "fixtures" / "cli"
RULES = str(FIX / "rules_only.cfg")

pytestmark = pytest.mark.skipif(
    shutil.which(CHROMIUM) is None,
    reason=f"{CHROMIUM} is missing: `apt-get install -y chromium` (make test installs it)",
)

TEXT = (
    "Dear Mr Ada Lee,\n\n"
    "your case ( no. 48213/09 ) was heard in Orvalt on 3 May 2010.\n"
    "Ada Lee's lawyer wrote to the Court in Orvalt."
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """The service (``create_app``) on 127.0.0.1, in a thread of this process."""
    port = _free_port()
    settings = ServeSettings(host="127.0.0.1", port=port, pipeline="rules_only")
    config = uvicorn.Config(
        create_app(load_pipeline(RULES), settings), host="127.0.0.1", port=port, log_level="warning"
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the service did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A fresh page that collects the browser's errors (a CSP violation is one). An English browser: the page of
    an English service speaks the browser's language (tests/test_review_language.py)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True, locale="en-US")
    pg = context.new_page()
    pg.errors = []  # type: ignore[attr-defined]
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.errors.append(m.text))  # type: ignore[attr-defined]
    yield pg
    context.close()


def open_review(page: Page, server: str) -> None:
    response = page.goto(server + "/")
    assert response is not None and response.status == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector("body[data-ready=yes]")


def wait_updated(page: Page) -> None:
    page.wait_for_selector("#status[data-state=ok]")
    assert page.inner_text("#status") == "up to date"


def marks(page: Page) -> list[tuple[str, str, str, str]]:
    """(text, label, decision, reviewed) of each span's mark, in text order."""
    return [
        tuple(m)
        for m in page.eval_on_selector_all(
            "#doc mark.span",
            "ms => ms.map(m => [m.textContent, m.dataset.label, m.dataset.decision, m.dataset.reviewed])",
        )
    ]


def select_text(page: Page, needle: str, occurrence: int = 0) -> None:
    """Select the ``occurrence``-th ``needle`` of the document (as a reader's mouse would)."""
    page.evaluate(
        """([needle, occurrence]) => {
            const root = document.getElementById('doc');
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            let seen = 0;
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                for (let i = node.data.indexOf(needle); i >= 0; i = node.data.indexOf(needle, i + 1)) {
                    if (seen++ === occurrence) {
                        const range = document.createRange();
                        range.setStart(node, i);
                        range.setEnd(node, i + needle.length);
                        getSelection().removeAllRanges();
                        getSelection().addRange(range);
                        return;
                    }
                }
            }
            throw new Error('not found: ' + needle);
        }""",
        [needle, occurrence],
    )


def downloads(page: Page, tmp_path: Path) -> dict[str, str]:
    """The export's files, downloaded by clicking their links."""
    files = {}
    for link in page.query_selector_all("#export-links a"):
        with page.expect_download() as info:
            link.click()
        target = tmp_path / info.value.suggested_filename
        info.value.save_as(target)
        files[target.name] = target.read_text(encoding="utf-8")
    return files


def badges_cover_no_text(page: Page, root: str) -> list[str]:
    """Problems with the badges of ``root``'s marks: a badge that takes no
    room of its own, or one whose room overlaps a character of the text."""
    return page.evaluate(
        """(root) => {
            const el = document.querySelector(root);
            const textRects = [];
            const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                for (let i = 0; i < node.data.length; i++) {
                    if (/\\s/.test(node.data[i])) continue;
                    const r = document.createRange();
                    r.setStart(node, i);
                    r.setEnd(node, i + 1);
                    for (const rect of r.getClientRects()) textRects.push(rect);
                }
            }
            const problems = [];
            for (const mark of el.querySelectorAll('mark.span')) {
                const r = document.createRange();
                r.selectNodeContents(mark);
                const text = [...r.getClientRects()].pop();
                const box = [...mark.getClientRects()].pop();
                // the badge: the mark's room after its text (on the text's last line, or on a line of its own)
                const sameLine = Math.min(text.bottom, box.bottom) > Math.max(text.top, box.top);
                const badge = {left: sameLine ? text.right : box.left, right: box.right, top: box.top, bottom: box.bottom};
                if (badge.right - badge.left < 10) problems.push('no room for the badge of ' + mark.textContent);
                for (const t of textRects) {
                    const overlap = Math.min(t.right, badge.right) - Math.max(t.left, badge.left) > 0.5
                        && Math.min(t.bottom, badge.bottom) - Math.max(t.top, badge.top) > 0.5;
                    if (overlap) problems.push('the badge of ' + mark.textContent + ' covers text');
                }
            }
            return problems;
        }""",
        root,
    )


def test_review_a_pasted_document_and_export_it(server, page, tmp_path):
    open_review(page, server)
    page.fill("#paste", TEXT)
    page.click("#review-paste")
    page.wait_for_selector("#doc mark.span")
    # the text exactly as written: its text nodes are the original, byte for byte
    assert page.evaluate("document.getElementById('doc').textContent") == TEXT
    assert marks(page) == [
        ("Mr Ada Lee", "PERSON", "masked", "no"),
        ("48213/09", "CODE", "masked", "no"),
        ("3 May 2010", "DATETIME", "masked", "no"),
        ("Ada Lee", "PERSON", "masked", "no"),
    ]
    assert page.inner_text("#counter") == "4 unreviewed of 4"
    assert page.inner_text("#sanitized") == (
        "Dear [PERSON 1],\n\nyour case ( no. [CODE 1] ) was heard in Orvalt on [DATETIME 1].\n"
        "[PERSON 1]'s lawyer wrote to the Court in Orvalt."
    )
    assert badges_cover_no_text(page, "#doc") == []

    # n: the first span, its panel; k: keep the applicant, every mention of him
    page.keyboard.press("n")
    assert page.inner_text("#span-fields dd >> nth=0") == "Mr Ada Lee"
    assert page.eval_on_selector_all("#span-reasons li", "ls => ls.map(l => l.textContent)") == ["policy:mask_all"]
    page.keyboard.press("k")
    wait_updated(page)
    assert [m[2:] for m in marks(page)] == [("kept", "yes"), ("masked", "no"), ("masked", "no"), ("kept", "yes")]
    assert page.inner_text("#counter") == "2 unreviewed of 4"

    # a missed span: select "Orvalt", pick LOC, every occurrence, add
    select_text(page, "Orvalt")
    page.select_option("#add-label", "LOC")
    page.check("#add-all")
    page.click("#btn-add")
    wait_updated(page)
    assert [m[:2] for m in marks(page)] == [
        ("Mr Ada Lee", "PERSON"),
        ("48213/09", "CODE"),
        ("Orvalt", "LOC"),
        ("3 May 2010", "DATETIME"),
        ("Ada Lee", "PERSON"),
        ("Orvalt", "LOC"),
    ]
    # p p: back from the added Orvalt to the applicant; n m: the case number masked (reviewed); n n: the date,
    # Delete: removed
    page.keyboard.press("p")
    page.keyboard.press("p")
    assert page.inner_text("#span-fields dd >> nth=0") == "Mr Ada Lee"
    page.keyboard.press("n")
    page.keyboard.press("m")
    wait_updated(page)
    page.keyboard.press("n")
    page.keyboard.press("n")
    assert page.inner_text("#span-fields dd >> nth=0") == "3 May 2010"
    page.keyboard.press("Delete")
    wait_updated(page)
    expected = (
        "Dear Mr Ada Lee,\n\nyour case ( no. [CODE 1] ) was heard in [LOC 1] on 3 May 2010.\n"
        "Ada Lee's lawyer wrote to the Court in [LOC 1]."
    )
    assert page.inner_text("#sanitized") == expected
    assert page.inner_text("#counter") == "all 5 spans reviewed"
    assert page.evaluate("document.getElementById('doc').textContent") == TEXT
    assert badges_cover_no_text(page, "#doc") == []

    page.click("#btn-export")
    page.wait_for_selector("#export-links a")
    files = downloads(page, tmp_path)
    assert sorted(files) == ["pasted.report.json", "pasted.sanitized.txt", "pasted.training.json"]
    assert files["pasted.sanitized.txt"] == expected
    report = json.loads(files["pasted.report.json"])
    assert report["text"] == TEXT and report["sanitized"] == expected
    assert [(s["text"], s["label"], s["masked"], s["reasons"]) for s in report["spans"]] == [
        ("Mr Ada Lee", "PERSON", False, ["review: kept"]),
        ("48213/09", "CODE", True, ["review: masked"]),
        ("Orvalt", "LOC", True, ["review: added"]),
        ("Ada Lee", "PERSON", False, ["review: kept"]),
        ("Orvalt", "LOC", True, ["review: added"]),
    ]
    # the training file: a TAB JSON list, the reviewer's decisions as the mentions of annotator "reviewer"
    mentions = [
        (5, 15, "Mr Ada Lee", "PERSON", "NO_MASK", "PERSON-1"),
        (34, 42, "48213/09", "CODE", "QUASI", "CODE-1"),
        (58, 64, "Orvalt", "LOC", "QUASI", "added-1"),
        (80, 87, "Ada Lee", "PERSON", "NO_MASK", "PERSON-1"),
        (119, 125, "Orvalt", "LOC", "QUASI", "added-1"),
    ]
    assert json.loads(files["pasted.training.json"]) == [
        {
            "doc_id": "pasted",
            "text": TEXT,
            "annotations": {
                "reviewer": {
                    "entity_mentions": [
                        {
                            "entity_type": label,
                            "entity_mention_id": f"pasted_em{n}",
                            "start_offset": start,
                            "end_offset": end,
                            "span_text": text,
                            "edit_type": "check",
                            "identifier_type": identifier,
                            "entity_id": entity,
                            "confidential_status": "NOT_CONFIDENTIAL",
                        }
                        for n, (start, end, text, label, identifier, entity) in enumerate(mentions, 1)
                    ]
                }
            },
            "spans": [
                {"start": start, "end": end, "label": label, "masked": identifier != "NO_MASK"}
                for start, end, _, label, identifier, _ in mentions
            ],
        }
    ]
    check_training_file(tmp_path / "pasted.training.json", tmp_path)
    assert page.errors == []  # type: ignore[attr-defined]


def check_training_file(path: Path, tmp_path: Path) -> None:
    """``textsan convert`` reads the exported training file: the reviewed
    decisions are its gold (masked: entities to learn; kept: NO_MASK)."""
    out = tmp_path / "reviewed.spacy"
    res = CliRunner().invoke(cli_app, ["convert", str(path), "--output", str(out), "--identifiers", "DIRECT,QUASI"])
    assert res.exit_code == 0, res.output
    (doc,) = DocBin().from_disk(out).get_docs(spacy.blank("en").vocab)
    assert doc.text == TEXT
    assert [(e.text, e.label_) for e in doc.ents] == [("48213/09", "CODE"), ("Orvalt", "LOC"), ("Orvalt", "LOC")]
    assert [(s.text, s.label_, s.id_) for s in doc.spans["textsan_gold"]] == [
        ("Mr Ada Lee", "PERSON", "NO_MASK"),
        ("48213/09", "CODE", "QUASI"),
        ("Orvalt", "LOC", "QUASI"),
        ("Ada Lee", "PERSON", "NO_MASK"),
        ("Orvalt", "LOC", "QUASI"),
    ]


def test_strategy_change_and_offsets_past_astral_characters(server, page, monkeypatch):
    monkeypatch.delenv("TEXTSAN_KEY", raising=False)
    text = "😀 Mr Ada Lee 🚀 called 0312 555 12 34 on 3 May 2010."
    open_review(page, server)
    page.fill("#paste", text)
    page.click("#review-paste")
    page.wait_for_selector("#doc mark.span")
    assert [m[:2] for m in marks(page)] == [
        ("Mr Ada Lee", "PERSON"),
        ("0312 555 12 34", "CODE"),
        ("3 May 2010", "DATETIME"),
    ]
    # offsets count code points on the server, UTF-16 units in the browser: the added span lands right
    select_text(page, "called")
    page.select_option("#add-label", "MISC")
    page.click("#btn-add")
    wait_updated(page)
    assert page.inner_text("#sanitized") == "😀 [PERSON 1] 🚀 [MISC 1] [CODE 1] on [DATETIME 1]."
    page.select_option("#strategy", "generalize")
    wait_updated(page)
    assert page.inner_text("#sanitized") == "😀 [PERSON 1] 🚀 *** *** on [2010]."
    page.select_option("#strategy", "hash")  # no key in the service's environment: its error is shown
    page.wait_for_selector("#status[data-state=error]")
    assert page.inner_text("#status") == (
        "render: generalizer: the hash strategy needs a key: no surrogate key: set $TEXTSAN_KEY or give a key file"
    )
    page.select_option("#strategy", "mask")
    wait_updated(page)
    assert page.inner_text("#sanitized") == "😀 [PERSON 1] 🚀 [MISC 1] [CODE 1] on [DATETIME 1]."
    assert page.errors == [  # type: ignore[attr-defined]
        "Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)"
    ]


def test_upload_csv_pick_its_column(server, page, tmp_path):
    src = tmp_path / "notes.csv"
    src.write_text('id,note,ward\n7,"Mr Ada Lee came,\nthen left.",B\n8,Nothing here.,C\n', encoding="utf-8")
    open_review(page, server)
    page.set_input_files("#file", str(src))
    page.wait_for_selector("#doc mark.span")
    assert page.eval_on_selector_all("#field option", "os => os.map(o => o.value)") == ["id", "note", "ward"]
    assert page.input_value("#field") == "note"
    assert page.eval_on_selector_all("#doc-select option", "os => os.map(o => o.textContent)") == [
        "7 (note)",
        "8 (note)",
    ]
    page.wait_for_selector("#doc mark.span")
    assert page.evaluate("document.getElementById('doc').textContent") == "Mr Ada Lee came,\nthen left."
    assert page.inner_text("#sanitized") == "[PERSON 1] came,\nthen left."
    page.select_option("#doc-select", "1")
    expect(page.locator("#doc")).to_have_text("Nothing here.")
    assert page.inner_text("#counter") == "all 0 spans reviewed"
    assert page.errors == []  # type: ignore[attr-defined]


def test_upload_jsonl_reads_its_text_field(server, page):
    open_review(page, server)
    page.set_input_files("#file", str(FIX / "notes.jsonl"))
    page.wait_for_selector("#doc mark.span")
    assert page.eval_on_selector_all("#field option", "os => os.map(o => o.value)") == ["id", "text", "lang"]
    assert page.input_value("#field") == "text"
    assert page.eval_on_selector_all("#doc-select option", "os => os.map(o => o.textContent)") == [
        "a (text)",
        "b (text)",
    ]
    assert page.inner_text("#sanitized") == "[PERSON 1] wrote on [DATETIME 1]."
    assert page.errors == []  # type: ignore[attr-defined]


def test_upload_tab_json_and_export_every_document(server, page, tmp_path):
    tab = json.loads((FIX / "tab_small.json").read_text(encoding="utf-8"))
    open_review(page, server)
    page.set_input_files("#file", str(FIX / "tab_small.json"))
    page.wait_for_selector("#doc mark.span")
    assert page.eval_on_selector_all("#doc-select option", "os => os.map(o => o.textContent)") == ["case-1", "case-2"]
    assert page.evaluate("document.getElementById('doc').textContent") == tab[0]["text"]
    page.keyboard.press("u")  # the first unreviewed span: the applicant; keep him
    page.keyboard.press("k")
    wait_updated(page)
    page.click("#btn-export-all")
    page.wait_for_selector("#export-links a")
    files = downloads(page, tmp_path)
    assert sorted(files) == ["report.jsonl", "sanitized.jsonl", "training.json"]
    assert [json.loads(line) for line in files["sanitized.jsonl"].splitlines()] == [
        {
            "doc_id": "case-1",
            "text": "The applicant, Mr Galip Yalman, was born in [DATETIME 1] in [LOC 1]. Yalman is Turkish.",
        },
        {"doc_id": "case-2", "text": "Application no. [CODE 1] was lodged on [DATETIME 1]."},
    ]
    assert [json.loads(line)["doc_id"] for line in files["report.jsonl"].splitlines()] == ["case-1", "case-2"]
    training = json.loads(files["training.json"])
    assert [(t["doc_id"], t["text"]) for t in training] == [(d["doc_id"], d["text"]) for d in tab]
    out = tmp_path / "all.spacy"
    res = CliRunner().invoke(cli_app, ["convert", str(tmp_path / "training.json"), "--output", str(out)])
    assert res.exit_code == 0, res.output
    docs = list(DocBin().from_disk(out).get_docs(spacy.blank("en").vocab))
    assert [[(s.text, s.id_) for s in d.spans["textsan_gold"]] for d in docs] == [
        [("Mr Galip Yalman", "NO_MASK"), ("1961", "QUASI"), ("Ankara", "QUASI"), ("Yalman", "NO_MASK")],
        [("48213/09", "QUASI"), ("14 March 2009", "QUASI")],
    ]
    assert page.errors == []  # type: ignore[attr-defined]


def test_open_a_sanitize_run_from_its_report(server, page, tmp_path):
    src = tmp_path / "in" / "letter.txt"
    src.parent.mkdir()
    src.write_text("Dear Mr Ada Lee,\n\nyour case 48213/09.\n", encoding="utf-8")
    res = CliRunner().invoke(cli_app, ["sanitize", str(src), "--out", str(tmp_path / "out"), "--pipeline", RULES])
    assert res.exit_code == 0, res.output
    open_review(page, server)
    page.set_input_files("#outputs", str(tmp_path / "out"))
    page.set_input_files("#folder", str(tmp_path / "out.report"))
    page.wait_for_selector("#doc mark.span")
    assert page.evaluate("document.getElementById('doc').textContent") == src.read_text(encoding="utf-8")
    assert [m[:3] for m in marks(page)] == [("Mr Ada Lee", "PERSON", "masked"), ("48213/09", "CODE", "masked")]
    page.keyboard.press("n")
    assert page.eval_on_selector_all("#span-reasons li", "ls => ls.map(l => l.textContent)") == ["policy:mask_all"]
    assert page.errors == []  # type: ignore[attr-defined]


def test_visualize_writes_the_page_read_only_text_exactly_as_written(browser, tmp_path):
    text = "Dear Mr Ada Lee,\r\n\r\nyour case ( no. 48213/09 ) <b> & co.\r\nAda Lee left.\n"
    src = tmp_path / "letter.txt"
    src.write_bytes(text.encode("utf-8"))
    res = CliRunner().invoke(cli_app, ["visualize", str(src), "--out", str(tmp_path / "v.html"), "--pipeline", RULES])
    assert res.exit_code == 0, res.output
    html = (tmp_path / "v.html").read_text(encoding="utf-8")
    assert "<script" not in html and "http" not in html.split("</style>")[0]  # no script, nothing from elsewhere
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    try:
        page.goto((tmp_path / "v.html").as_uri())
        assert page.evaluate("document.querySelector('.doc.original').textContent") == text
        assert page.evaluate("document.querySelector('.doc.sanitized').textContent") == (
            "Dear [PERSON 1],\r\n\r\nyour case ( no. [CODE 1] ) <b> & co.\r\n[PERSON 1] left.\n"
        )
        assert page.eval_on_selector_all(
            ".doc.original mark", "ms => ms.map(m => [m.textContent, m.dataset.label])"
        ) == [["Mr Ada Lee", "PERSON"], ["48213/09", "CODE"], ["Ada Lee", "PERSON"]]
        # paragraph breaks are kept: the second paragraph starts below the first, a blank line between
        tops = page.eval_on_selector_all(".doc.original mark", "ms => ms.map(m => m.getBoundingClientRect().top)")
        assert tops[1] - tops[0] > 1.5 * (tops[2] - tops[1]) > 0
        assert badges_cover_no_text(page, ".doc.original") == []
    finally:
        page.close()
