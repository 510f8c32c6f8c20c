"""German court file numbers (Aktenzeichen) written without a cue word: ``3 K 123/20``,
``82 Js 82006/2003``, ``VI ZR 123/19``, ``1 BvR 2345/18``, ``L 4 R 1234/19``.

A German file number is the chamber or senate (digits, a Roman numeral, or a court's letter and a
number: ``L 4``), the register (one capital and up to three letters: ``K``, ``Js``, ``BvR``, ``ZR``)
and the number with its year. Without its cue (``Aktenzeichen``, ``Az.``: ``data/de/code_cues.txt``)
only the number and year (``82006/2003``) read as a code, and the chamber stays in clear; this
recognizer reads the whole of it. Not a default recognizer: the German config names it
(``configs/default_de.cfg``). Source ``rule:german_case_number``, CODE.
"""

import re

import spacy

from .combine import PRIORITY_CODE, Candidate
from .recognizers import Context, Recognizer

__all__ = ["GermanCaseNumbers", "find_german_case_numbers"]

_CASE_NUMBER = re.compile(
    r"(?<![\w/.-])(?:[A-Z]{1,2}[ \u00a0]+)?(?:\d{1,3}|[IVX]{1,5})[ \u00a0]+[A-Z][A-Za-z]{0,3}[ \u00a0]+"
    r"\d{1,6}/\d{2}(?:\d{2})?(?![\w/])"
)


def find_german_case_numbers(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each German file number in ``text``."""
    return [m.span() for m in _CASE_NUMBER.finditer(text)]


class GermanCaseNumbers(Recognizer):
    """German court file numbers (:func:`find_german_case_numbers`): CODE, source ``rule:german_case_number``."""

    name = "german_case_numbers"
    languages = ("de",)
    types = ("CODE",)

    def find(self, text: str, context: Context) -> list[Candidate]:
        return [
            Candidate(s, e, "CODE", "rule:german_case_number", PRIORITY_CODE) for s, e in find_german_case_numbers(text)
        ]


@spacy.registry.misc("spacy_textsan.recognizer.german_case_numbers.v1")
def german_case_numbers() -> Recognizer:
    return GermanCaseNumbers()
