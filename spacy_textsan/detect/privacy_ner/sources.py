"""Source pipelines of privacy_ner: spaCy pipelines whose NER entities are
candidates (an installed package, a path, or a folder inside the package
named ``spacy_textsan:ner/es``: :func:`source_location`), loaded once per
process with only their NER enabled, run over long texts in pieces.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import cast

import spacy
from spacy.language import Language
from spacy.pipeline import TrainablePipe

from ...languages import is_package_source, package_source_path
from ...tokenizer import linear_tokenizer

_SOURCE_CACHE: dict[str, Language] = {}

#: Texts longer than this go through a source NER in pieces (memory and time stay
#: linear; a piece ends at a paragraph, line or sentence break when there is one).
SOURCE_PIECE_CHARS = 20000


def split_text(text: str, size: int = SOURCE_PIECE_CHARS) -> list[int]:
    """Start offsets of the pieces of ``text``: each at most ``size`` characters
    (a little more only when no break is found), cut after the last blank
    line, else line break, else ". " in the piece's second half."""
    starts, pos, n = [0], 0, len(text)
    while n - pos > size:
        window = text[pos + size // 2 : pos + size]
        cut = -1
        for sep in ("\n\n", "\n", ". "):
            k = window.rfind(sep)
            if k >= 0:
                cut = pos + size // 2 + k + len(sep)
                break
        if cut < 0:
            k = window.rfind(" ")
            cut = pos + size // 2 + k + 1 if k >= 0 else pos + size
        starts.append(cut)
        pos = cut
    return starts


def source_entities(
    nlp: Language, texts: Sequence[str], batch_size: int = 32, piece_chars: int = SOURCE_PIECE_CHARS
) -> list[list[tuple[int, int, str]]]:
    """``(start, end, label)`` of the entities a source pipeline finds in each
    text, long texts run in pieces (:func:`split_text`) with offsets shifted back."""
    pieces, owners = [], []
    for i, text in enumerate(texts):
        starts = split_text(text, piece_chars)
        for k, start in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(text)
            pieces.append(text[start:end])
            owners.append((i, start))
    out: list[list[tuple[int, int, str]]] = [[] for _ in texts]
    for (i, offset), sdoc in zip(owners, nlp.pipe(pieces, batch_size=max(1, batch_size)), strict=False):
        out[i].extend((offset + e.start_char, offset + e.end_char, e.label_) for e in sdoc.ents)
    return out


def add_cased_persons(
    nlp: Language, runs: Sequence[Sequence[tuple]], ents_per_doc: list[list[tuple[int, int, str]]]
) -> list[list[tuple[int, int, str]]]:
    """The PERSON entities a source finds in the title-cased ALL-CAPS runs of
    each text (:func:`.normalize.caps_runs`), added to its entities there."""
    pieces = [(i, start, cased) for i, doc_runs in enumerate(runs) for start, _, cased in doc_runs]
    if not pieces:
        return ents_per_doc
    out = [list(ents) for ents in ents_per_doc]
    for (i, offset, _), sdoc in zip(pieces, nlp.pipe([p[2] for p in pieces]), strict=False):
        out[i].extend((offset + e.start_char, offset + e.end_char, "PERSON") for e in sdoc.ents if e.label_ == "PERSON")
    return out


def source_location(name: str) -> str | Path:
    """What ``spacy.load`` reads for source ``name``: a package-relative source
    (``spacy_textsan:ner/es``, the folder ``spacy_textsan/assets/ner/es``) as
    its path, anything else (an installed package, a path) as it is. A
    package-relative folder that is not there is spaCy's "can't find model"
    error (E050) naming the source, so that the message of a missing model
    (:func:`spacy_textsan.pipeline.missing_model_message`) says what to install."""
    if not is_package_source(name):
        return name
    path = package_source_path(name)
    if not (path / "config.cfg").is_file():
        raise OSError(f"[E050] Can't find model '{name}'. It is not a folder of this installation ({path}).")
    return path


def load_source(name: str) -> Language:
    """Load a source pipeline (installed package, path, or a folder of the
    package: :func:`source_location`) with only its NER (and the tok2vec it
    listens to) enabled; cached per process."""
    if name not in _SOURCE_CACHE:
        nlp = spacy.load(source_location(name))
        if "ner" not in nlp.pipe_names:
            raise ValueError(f"privacy_ner source {name!r} has no 'ner' component")
        needed = {"ner"}
        ner_model = cast(TrainablePipe, nlp.get_pipe("ner")).model
        for node in ner_model.walk():
            if node.name.startswith("tok2vec-listener") or "listener" in node.name:
                needed.add("tok2vec")
        for pipe_name in nlp.pipe_names:
            if pipe_name not in needed:
                nlp.disable_pipe(pipe_name)
        # the same tokens, but a long run without spaces costs linear time (spacy_textsan.tokenizer)
        nlp.tokenizer = linear_tokenizer(nlp.tokenizer)
        _SOURCE_CACHE[name] = nlp
    return _SOURCE_CACHE[name]
