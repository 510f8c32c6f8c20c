"""What reid_risk sets up once per process: the word frequencies its attack weighs words by, per language
(:func:`word_zipf`), and a warm-up of the attack while the pipeline loads (:func:`warm_up`)."""

from __future__ import annotations

import itertools
import logging
from functools import lru_cache

from ..languages import WORDFREQ_LANGUAGES
from ..risk.reid_attack import DocWords, plan_masks
from ..risk.reid_family import words_of
from ..risk.reid_index import BackgroundIndex
from ..risk.reid_words import LANGUAGES as READ_LANGUAGES
from ..risk.reid_words import analyser

__all__ = ["CUE_ZIPF", "WARM_UP_TERMS", "warm_up", "word_zipf"]

logger = logging.getLogger("spacy_textsan")

#: the Zipf frequency given to the detector's cue words (Kontakt, Hej, Mvh): they announce a name, name no one
CUE_ZIPF = 7.0


@lru_cache(maxsize=8)
def word_zipf(lang: str):
    """A word's frequency in ``lang`` on wordfreq's Zipf scale (0 for a word it does not know; a cue word
    of the detector's lists counts as common). The words come folded (``requerant``: lower case without
    accents, as the attack's analysers index them): in a language other than English a folded word also
    has the frequency of the most frequent word that folds to it (``requérant``,
    :func:`~spacy_textsan.risk.phrases.folded_zipfs`), or every accented word would count as unknown;
    in French, Spanish and German that of its stem family (:func:`_family_zipf`): a verb form is no name.
    One function per language, its answers cached."""
    from ..risk.phrases import _wordfreq, folded_zipfs, is_cue_word

    wordfreq = _wordfreq()
    if lang == "en" or lang not in WORDFREQ_LANGUAGES:

        def frequency(word: str) -> float:
            return CUE_ZIPF if is_cue_word(word) else wordfreq.zipf_frequency(word, lang)

    elif lang in READ_LANGUAGES:
        family = _family_zipf(lang)

        def frequency(word: str) -> float:
            return CUE_ZIPF if is_cue_word(word) else max(wordfreq.zipf_frequency(word, lang), family(word))

    else:
        folded = folded_zipfs(lang)

        def frequency(word: str) -> float:
            return CUE_ZIPF if is_cue_word(word) else max(wordfreq.zipf_frequency(word, lang), folded.get(word, 0.0))

    # one function per language for the process, its answers kept (the attack asks of every word of
    # every document, several times; wordfreq takes microseconds each)
    return lru_cache(maxsize=1 << 16)(frequency)


#: the background terms the warm-up document is written with
WARM_UP_TERMS = 40


def warm_up(index: BackgroundIndex, k: int, margin: float) -> None:
    """Plan the masks of a short document of the background's own first terms, once, while the pipeline
    loads: the attack's compiled passes (Numba's cache) are loaded then, not at the first document (about
    0.2 s on this project's machine; in ``textsan sanitize`` while the NER's process loads its model).
    A failure here is logged and left to the first document to report."""
    stems = index.family.get("stem") if index.family else None
    if stems is None:
        return
    text = " ".join(itertools.islice(iter(stems.vocab), WARM_UP_TERMS))
    try:
        words = words_of(text, index.analyser)
        doc = DocWords(text, words, list(range(len(words))), [w.end - w.start for w in words])
        plan_masks(index, doc, k=k, margin=margin, max_steps=3)
    except Exception as error:  # the first document fails closed if the attack cannot run
        logger.debug("reid_risk: the warm-up failed: %s", error)


@lru_cache(maxsize=4)
def _family_zipf(lang: str):
    """A folded word's Zipf frequency in ``lang``: its stem family's most frequent word's
    (:meth:`~spacy_textsan.risk.reid_words.Analyser.family_zipf`; under a second, once per process)."""
    from ..risk.phrases import _wordfreq

    return analyser(lang).family_zipf(_wordfreq().get_frequency_dict(lang))
