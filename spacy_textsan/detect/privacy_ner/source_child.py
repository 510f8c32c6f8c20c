"""The entry point of privacy_ner's NER process (``python
.../spacy_textsan/detect/privacy_ner/source_child.py``): :func:`.source_process.main`.

Run as a file, not with ``-m``: the packages above it are made bare (their
``__init__`` is not run), so the process does not import every component of
spacy-textsan, and, through them, spaCy and PyTorch before it knows whether its
sources need them. It imports what reading a source takes and no more."""

import sys
import types
from pathlib import Path


def bare_packages() -> None:
    """``spacy_textsan``, ``spacy_textsan.detect`` and
    ``spacy_textsan.detect.privacy_ner`` as bare packages of this copy's
    folders (their modules import as usual), and this folder off the module
    path (its modules are not top-level modules)."""
    here = Path(__file__).resolve().parent
    if sys.path and sys.path[0] and Path(sys.path[0]).resolve() == here:
        del sys.path[0]
    for name, path in (
        ("spacy_textsan", here.parent.parent),
        ("spacy_textsan.detect", here.parent),
        ("spacy_textsan.detect.privacy_ner", here),
    ):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = [str(path)]
            sys.modules[name] = package


if __name__ == "__main__":
    bare_packages()
    from spacy_textsan.detect.privacy_ner.source_process import main

    main()
