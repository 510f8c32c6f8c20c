"""How ``privacy_ner`` reads a text and links the mentions it found: one config
block, ``spacy_textsan.mentions.v1``.

The settings and their defaults are written once, in :class:`Mentions`'
fields; a config names the block and changes what it needs::

    [components.privacy_ner.mentions]
    @misc = "spacy_textsan.mentions.v1"
    propagate = false
"""

from collections.abc import Sequence
from dataclasses import dataclass

import spacy

from .normalize import NormalizedText, caps_runs
from .normalize import normalize as normalized_copy

__all__ = ["Mentions"]


@spacy.registry.misc("spacy_textsan.mentions.v1")
@dataclass(frozen=True)
class Mentions:
    """The settings of privacy_ner's mentions (``spacy_textsan.mentions.v1``).

    normalize (bool): Detect on a normalised copy of the text (:mod:`.normalize`: NFKC,
        invisible characters removed, homoglyphs folded) and map the offsets back to the original.
    restore_case (bool): Runs of ALL-CAPS words are also read title-cased by the source NER
        (``SIGNED: PEDER HALVORSEN``).
    propagate (bool): Every other occurrence of a detected string (and of a detected person's
        surname, initials, possessive...) becomes a candidate too.
    fuzzy_threshold (float): The rapidfuzz ratio above which two mentions of one type are one entity.
    """

    normalize: bool = True
    restore_case: bool = True
    propagate: bool = True
    fuzzy_threshold: float = 90.0

    def detection_text(self, text: str) -> NormalizedText:
        """The text that detectors read; offsets map back to ``text``."""
        return normalized_copy(text) if self.normalize else NormalizedText(text, text)

    def caps_runs(self, texts: Sequence[str]) -> list[list[tuple]]:
        """For each text, its runs of ALL-CAPS words title-cased (none without ``restore_case``)."""
        return [caps_runs(t) for t in texts] if self.restore_case else [[] for _ in texts]
