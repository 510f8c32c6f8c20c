"""One docstring convention in the package, spaCy's: prose first, then one line per
argument ``name (type): description``, ``RETURNS (type): ...`` and ``RAISES (Error): ...``
(continuations indented); no Google, NumPy or Sphinx sections."""

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "spacy_textsan"
#: A section header of another convention: Google ("Args:"), NumPy ("Parameters" over dashes), Sphinx (":param x:").
#: Underlined prose headings of a module docstring ("Chains" over dashes) are not sections of arguments.
FOREIGN = re.compile(
    r"^\s*(?:(?:Args|Arguments|Returns|Raises|Yields|Parameters|Keyword Args|Example|Examples):\s*$"
    r"|(?:Parameters|Returns|Yields|Raises|Attributes)\s*\n\s*-{3,}\s*$"
    r"|:(?:param|type|returns?|rtype|raises?)\b)",
    re.MULTILINE,
)
#: spaCy's lines for what a function gives back and raises.
SPACY_LINE = re.compile(r"^\s*(RETURNS|RAISES|YIELDS)\b(.*)$", re.MULTILINE)


def docstrings(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield getattr(node, "name", path.stem), doc


def test_the_checks_tell_the_conventions_apart():
    google = "Do it.\n\n    Args:\n        x: a thing.\n    Returns:\n        it.\n"
    numpy = "Do it.\n\n    Parameters\n    ----------\n    x : int\n"
    sphinx = "Do it.\n\n    :param x: a thing.\n    :returns: it.\n"
    spacy = "Do it.\n\n    x (int): a thing.\n    RETURNS (int): it.\n    RAISES (ValueError): when x < 0.\n"
    assert all(FOREIGN.search(d) for d in (google, numpy, sphinx))
    assert not FOREIGN.search(spacy)
    assert [m.group(2) for m in SPACY_LINE.finditer(spacy)] == [" (int): it.", " (ValueError): when x < 0."]


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_docstrings_follow_spacys_convention(path):
    for name, doc in docstrings(path):
        foreign = FOREIGN.search(doc)
        assert foreign is None, f"{path.name}: {name}: {foreign.group(0).strip()!r} (write spaCy's form)"
        for match in SPACY_LINE.finditer(doc):
            assert re.match(r" \([^)]+\): \S", match.group(2)), f"{path.name}: {name}: {match.group(0).strip()!r}"
