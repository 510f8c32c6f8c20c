"""No file a reader of the package has cites a "seed" document (issue 28).

The methods are cited by author and year as listed in ``docs/references.md``
(e.g. "Papadopoulou et al. 2022a, §3.3"), never as "seed 003", a document a
reader of the package does not have. A random seed (``seed = 0``, "seed 18")
is not a citation: the pattern needs a 0 followed by two digits.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ["spacy_textsan", "configs", "docs", "README.md", "project.yml"]
SEED_CITATION = re.compile(r"(?i)\bseeds?\s+0\d\d")


def _text_files() -> list[Path]:
    files: list[Path] = []
    for name in CHECKED:
        path = ROOT / name
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for candidate in candidates:
            if "__pycache__" in candidate.parts:
                continue
            try:
                candidate.read_text(encoding="utf-8")
            except UnicodeDecodeError:  # binary data (indexes, images, gzip)
                continue
            files.append(candidate)
    return files


@pytest.mark.parametrize(
    ("text", "cites"),
    [
        ("seed 003 §3.3", True),
        ("Seed 000's order", True),
        ("seeds 002 and 003", True),
        ("seed\n000 links entities", True),
        ("seed = 0", False),
        ("seed=18", False),
        ("seed 18", False),
        ("a fixed seed 0 for CP-SAT", False),
        ("reseed 003", False),
    ],
)
def test_pattern(text: str, cites: bool) -> None:
    assert bool(SEED_CITATION.search(text)) is cites


def test_checked_files_exist() -> None:
    for name in CHECKED:
        assert (ROOT / name).exists(), name
    assert len(_text_files()) > 50


def test_no_seed_citations() -> None:
    hits = []
    for path in _text_files():
        text = path.read_text(encoding="utf-8")
        for match in SEED_CITATION.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            hits.append(f"{path.relative_to(ROOT)}:{line}: {match.group(0)!r}")
    assert not hits, "cite the paper as in docs/references.md, not a seed:\n" + "\n".join(hits)
