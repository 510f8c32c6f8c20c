"""The work of the default pipeline is linear in the mentions of a document:
a paragraph naming the same people, repeated twice as often, costs at most
about twice the Python function calls (a deterministic measure of work, not
a timing). Issue 26: a per-mention loop over all reasons of an entity made
mask_optimizer quadratic (4,004,000 calls of add_reason for 1,000 repetitions)."""

import cProfile
import pstats

import pytest

from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.run.runner import sanitize_texts

PARAGRAPH = (
    "Mr Galip Yalman, a lawyer in Ankara born on 3 May 1961, met Ms Ayşe Demir at the Ankara Bar. "
    "Yalman told Demir that the case no. 48213/09 would be heard in Strasbourg.\n"
)


@pytest.fixture(scope="module")
def nlp():
    nlp = load_pipeline(None)
    list(sanitize_texts(nlp, [PARAGRAPH * 3]))  # loads what is loaded on first use
    return nlp


def work(nlp, repetitions: int) -> tuple[int, dict[str, int]]:
    """Python calls made while sanitizing the paragraph repeated, in all and per function."""
    profile = cProfile.Profile()
    profile.enable()
    (result,) = sanitize_texts(nlp, [PARAGRAPH * repetitions])
    profile.disable()
    assert "Yalman" not in result.sanitized and "Demir" not in result.sanitized
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    per = {f"{file.rsplit('/', 1)[-1]}:{line}:{name}": calls for (file, line, name), (_, calls, *_) in stats.items()}
    return sum(per.values()), per


def test_doubling_the_mentions_at_most_doubles_the_work(nlp):
    total_20, per_20 = work(nlp, 20)
    total_40, per_40 = work(nlp, 40)
    assert total_40 <= 2.1 * total_20, (total_20, total_40)
    # no single function grows faster than the mentions (beyond a small constant)
    superlinear = {f: (per_20.get(f, 0), n) for f, n in per_40.items() if n > 2.1 * per_20.get(f, 0) + 50}
    assert superlinear == {}
