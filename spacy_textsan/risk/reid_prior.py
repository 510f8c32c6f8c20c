"""Who the document is about, as the original text tells it, and whether the background holds that person.

The defence holds the original document. A search over it (the ``stem`` analyser) where distinctive
words (rare in the language: names, places, rare words) and the words of direct identifiers weigh more
gives a prior over the records (:func:`prior`): common words say what a document is about, not whom.
Whether the background holds the person at all (:func:`coverage`) decides whether the risk can be
measured; a clinical letter against court judgments cannot be.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable

import numpy as np

from .reid_family import TermPostings, Word
from .reid_problem import _df
from .reid_scores import DocWords, FamilyBackground, _weights, attack_probabilities

__all__ = ["MIN_SHARED", "NAME_ZIPF", "STRANGER", "coverage", "prior"]

#: the prior needs a record that shares this many distinctive words with the document
MIN_SHARED = 2
#: a distinctive word held by more than this share of the records is the domain's, no one's (coverage)
EVIDENCE_SHARE = 0.05
#: a word of a direct identifier commoner than this (Zipf) is no name (Mr, Ms, Judge)
NAME_ZIPF = 5.0
#: a name that this many records hold or more is no one's own (a lawyer, a government agent, a common surname)
PERSONAL_DF = 4
#: the prior counts a distinctive word this many times more than a common one, and a distinctive word
#: of a direct identifier (a name, a code) this many times more again
DISTINCT_WEIGHT = 3
DIRECT_WEIGHT = 4


def _distinctive(word: Word, zipf: Callable[[str], float] | None, distinct_zipf: float) -> bool:
    """A word that says who rather than what: letters, and rarer than ``distinct_zipf`` in the language
    (every word with letters, without ``zipf``)."""
    return (
        not word.stop and any(c.isalpha() for c in word.folded) and (zipf is None or zipf(word.folded) < distinct_zipf)
    )


def _name(word: Word, zipf: Callable[[str], float] | None) -> bool:
    """A word of a direct identifier that can name someone: letters, no title or other word commoner than
    :data:`NAME_ZIPF` (Mr, Ms, Judge)."""
    return not word.stop and any(c.isalpha() for c in word.folded) and (zipf is None or zipf(word.folded) < NAME_ZIPF)


def prior(
    background: FamilyBackground,
    doc: DocWords,
    excluded: np.ndarray,
    margin: float,
    target: int | None,
    zipf: Callable[[str], float] | None,
    distinct_zipf: float,
) -> tuple[np.ndarray, np.ndarray]:
    """``(prior, scores)``: who the person is, over every record, as the original text tells it: a search
    with its distinctive words (names, places, rare words; :func:`_distinctive`) and the words of its
    direct identifiers counted twice; or certainly ``target``. Common words say what the document is
    about, not whom: a judgment on the same subject is not the same person."""
    postings = background.family["stem"]
    counts: Counter[int] = Counter()
    for f in doc.features["stem"]:
        if (tid := postings.term_id(f.term)) is None:
            continue
        distinctive = all(_distinctive(doc.words[w], zipf, distinct_zipf) for w in f.words)
        direct = any(doc.direct[w] and _name(doc.words[w], zipf) for w in f.words)
        counts[tid] += 1 + DISTINCT_WEIGHT * int(distinctive) + DIRECT_WEIGHT * int(direct)
    tids = list(counts)
    weights = _weights(postings, tids, excluded)
    scores = weights.scores(np.array([counts[t] for t in tids], dtype=float), "lucene", background.n_records)
    scores[excluded] = 0.0
    if target is not None:
        out = np.zeros(background.n_records)
        out[target] = 1.0
        return out, scores
    return attack_probabilities(scores[None, :], margin)[0], scores


def _domain_limit(excluded: np.ndarray) -> float:
    """The most records a word that ties a record to the person may be held by: :data:`EVIDENCE_SHARE` of
    the records (at least :data:`PERSONAL_DF`). A word of the document's domain (``cassation`` in a
    quarter of the judgments) ties no record to the person, however rare it is in the language."""
    return max(PERSONAL_DF, EVIDENCE_SHARE * int(np.count_nonzero(~excluded)))


def _holders(postings: TermPostings, terms: set[str], excluded: np.ndarray) -> np.ndarray:
    """Per record: how many of ``terms`` it holds (``excluded`` records: 0)."""
    held = np.zeros(postings.n_records, dtype=np.int64)
    for term in terms:
        if (tid := postings.term_id(term)) is not None:
            held[postings.postings(tid)[0]] += 1
    held[excluded] = 0
    return held


def holds_evidence(
    background: FamilyBackground,
    doc: DocWords,
    best: int,
    excluded: np.ndarray,
    zipf: Callable[[str], float] | None,
    distinct_zipf: float,
) -> bool:
    """Whether record ``best`` holds a word of the document's direct identifiers (however common: Walsh) or
    one of its distinctive words: what ties a record that stands out to the person, not to the subject."""
    postings = background.family.get("word")
    if postings is None:
        return False
    words = {
        w.folded
        for w, d in zip(doc.words, doc.direct, strict=True)
        if (d and not w.stop and sum(c.isalpha() for c in w.folded) > 1) or _distinctive(w, zipf, distinct_zipf)
    }
    return bool(words) and bool(_holders(postings, words, excluded)[best] > 0)


#: why a document that names a stranger is not measured (:func:`coverage`)
STRANGER = (
    "the document names someone whose full name no background record holds, and the record most like it "
    "holds no name of that person's own: the background does not hold this person"
)


def _own_names(personal: dict[str, np.ndarray], mentions: Counter[str], best: int) -> tuple[bool, str]:
    """Whether the names record ``best`` holds are the person's: not when every one of them is held by
    other records too (a law firm, a government agent in two or three judgments) while a name the
    document mentions at least as often is in no record (the applicant: a person the background does
    not hold)."""
    shared = sorted(name for name, records in personal.items() if best in records)
    unknown = sorted(name for name, records in personal.items() if len(records) == 0)
    if not unknown:
        return True, ""
    most = max(mentions[name] for name in unknown)
    if most < max(mentions[name] for name in shared):
        return True, ""
    if any(len(personal[name]) < 2 for name in shared):
        if len(shared) > 1 or len(unknown) < 2:
            return True, ""
        # one name of the record's own (a lawyer's surname) against a full name in no record (the applicant)
        return False, (
            f"the background record most like this document holds one of its names ({shared[0]}), and no "
            f"record holds {', '.join(unknown)}, which the document names as often: the background does not "
            "hold this person"
        )
    return False, (
        f"the background record most like this document holds only names that other records hold too "
        f"({', '.join(shared)}), and no record holds {', '.join(unknown)}, which the document names as often: "
        "the background does not hold this person"
    )


def _unknown_full_name(doc: DocWords, personal: dict[str, np.ndarray], zipf: Callable[[str], float] | None) -> bool:
    """Whether a direct identifier of the document (a run of its words) is a full name no record holds: two
    names or more, each of them a name of its own (:data:`PERSONAL_DF`) in no record."""
    for direct, run in itertools.groupby(zip(doc.words, doc.direct, strict=True), key=lambda pair: pair[1]):
        names = [word.folded for word, _ in run if _name(word, zipf)] if direct else []
        if len(names) >= 2 and all(name in personal and len(personal[name]) == 0 for name in names):
            return True
    return False


def coverage(
    background: FamilyBackground,
    doc: DocWords,
    best: int,
    excluded: np.ndarray,
    zipf: Callable[[str], float] | None,
    distinct_zipf: float,
) -> tuple[bool, str]:
    """Whether the background holds the document's person, judged on record ``best`` (the prior's).

    A document whose own names (the words of its direct identifiers but titles and other words commoner
    than :data:`NAME_ZIPF`, held by fewer than :data:`PERSONAL_DF` records: not a lawyer's, a government
    agent's or a common surname) some record holds is measured when ``best`` holds one of them: a
    person's record carries the person's names; unless every name ``best`` holds is held by other records
    too and a name the document mentions as often is in none (:func:`_own_names`). A document with common
    names only is measured when ``best`` holds one. A document that names someone by a full name no record
    holds, when ``best`` holds no name of its own, is not (:data:`STRANGER`: a judgment on the same subject,
    not the person's). Any other document is measured when ``best`` holds two of its names (a full name:
    in a large background every surname is shared by several records). Otherwise (no names, or one name no
    record knows: a wrong label, a new person) ``best`` must hold :data:`MIN_SHARED` of the document's
    distinctive words. ``(measured, why not)``."""
    postings = background.family.get("word")
    if postings is None:
        return False, "the background has no word postings"
    mentions = Counter(w.folded for w, d in zip(doc.words, doc.direct, strict=True) if d and _name(w, zipf))
    names = set(mentions)
    personal: dict[str, np.ndarray] = {}  # a name fewer than PERSONAL_DF records hold: those records
    for name in names:
        tid = postings.term_id(name)
        records = np.zeros(0, dtype=np.int64) if tid is None else np.asarray(postings.postings(tid)[0])
        records = records[~excluded[records]]
        if len(records) < PERSONAL_DF:
            personal[name] = records
    held = _holders(postings, set(personal), excluded) if personal else np.zeros(1, dtype=np.int64)
    if held.any():
        if held[best] > 0:
            return _own_names(personal, mentions, best)
        return False, (
            f"the background record most like this document holds none of its {len(personal)} names: "
            "the background does not hold this person"
        )
    names_held = int(_holders(postings, names, excluded)[best]) if names else 0
    if not personal and names_held > 0:
        return True, ""  # common names only (Brown, Malcolm), one of them in the record
    if _unknown_full_name(doc, personal, zipf):
        # a full name no record holds, and the record most like the document holds no name of its own (a
        # government agent's surname, a court's name read as a person's at most): a judgment on the same
        # subject (the same offence, the same court), not the person's record
        return False, STRANGER
    if names_held >= 2:
        # two of its names together (a given name and a surname), each held by many records (a large
        # background shares surnames): the person's full name, not a namesake's surname
        return True, ""
    limit, excluded_at = _domain_limit(excluded), np.flatnonzero(excluded)
    distinctive = {
        w.folded
        for w in doc.words
        if _distinctive(w, zipf, distinct_zipf) and _df(postings, w.folded, excluded_at) <= limit
    }
    shared = int(_holders(postings, distinctive, excluded)[best]) if distinctive else 0
    if distinctive and shared >= min(MIN_SHARED, len(distinctive)):
        return True, ""
    if not distinctive:
        return False, (
            "the document has no name and no word rare both in the language and in the background: "
            "the background does not hold this person"
        )
    return False, (
        f"the background record most like this document shares {shared} of its {len(distinctive)} "
        "distinctive words: the background does not hold this person"
    )
