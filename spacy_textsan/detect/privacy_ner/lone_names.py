"""A surname or given name alone as the subject of an English sentence: ``Barnes became the first English
official``, ``Griffith starred at Louisville Male High School``, ``McCann's wealth stemmed from...``.

A small English NER misses such a name (or reads it as an organisation), and the later-mention rule
(:mod:`.name_mentions`) only finds the names of a person already detected in full. Here a capitalised
word is a PERSON when all of these hold:

* it is a given name or a surname of the name lexicon (:mod:`.names`), and rare as an English word
  (wordfreq's Zipf frequency of its lower case under :data:`MAX_ZIPF`: ``Barnes`` 3.9, ``Griffith``
  3.5 pass, ``Grant`` 4.7, ``Court`` 5.4, ``Hell`` 5.1 do not);
* it is no word of ``data/not_person_words.txt``, and no place of the gazetteer's knowledge base
  (``Jordan was invaded``) unless its verb is one only a person does (:data:`PERSON_VERBS`:
  ``Barnes became``);
* no capitalised word comes right before it (a longer name or an organisation is the NER's) but a
  common one that starts the sentence (``Then Walsh went``);
* it is followed by a verb of :data:`VERBS` (after at most two adverbs of :data:`ADVERBS`:
  ``McCann personally profited``) or is a possessive followed by a lower-case word (``McCann's wealth``).

A pure function over a string returning ``(start, end, "PERSON", "lone_name")`` tuples
(:data:`.names.NameCandidate`); English only.
"""

import re

from wordfreq import zipf_frequency

from .names import FIRST, LAST, LATIN_LETTERS, NOT_PERSON_WORDS, PERSON, NameCandidate, name_lexicon
from .places import place_key, place_names

__all__ = ["ADVERBS", "MAX_ZIPF", "PERSON_VERBS", "VERBS", "find_lone_names"]

#: a name rarer than this as an English word (Zipf) can stand alone
MAX_ZIPF = 4.5
#: what a person does in a biography, a ruling or a note, after their name as the subject
VERBS = frozenset(
    """
    was is has had were are became becomes began begins starred stars played plays won wins joined joins
    received receives attended attends returned returns moved moves made makes left leaves graduated married
    died served serves worked works studied studies signed signs scored scores released releases recorded
    published wrote writes founded argued argues submitted complained complains stated states claimed
    claims alleged alleges testified appealed appeals lodged applied told tells said says denied denies
    admitted admits lived lives grew spent retired continued competed finished reached took takes gave
    went came remained announced earned defeated lost resigned decided refused asked explained maintained
    contended would will could did does profited sued visited met saw
    """.split()
)
#: the verbs of :data:`VERBS` that only a person does: after one of them a name that is also a place
#: (``Barnes``, a district of London; ``Griffith``, a town in Australia) is still read as a name
PERSON_VERBS = frozenset(
    """
    became starred married died graduated studied played scored testified complained argued alleged claimed
    said told admitted denied resigned retired sued joined attended signed won competed defeated earned
    wrote published recorded released founded profited visited met
    """.split()
)
#: a capitalised word before the name this common in English starts the sentence (``Then``, ``When``)
#: rather than a longer name
FUNCTION_ZIPF = 5.5
#: adverbs allowed between the name and its verb
ADVERBS = frozenset("also then later subsequently personally eventually soon again initially first still never".split())

_L = LATIN_LETTERS
_NAME = re.compile(rf"(?<![{_L}'’\-.])(?P<name>(?:O['’])?[A-Z][{_L}]+)(?P<poss>['’]s)?(?![{_L}'’\-])")
_GAP = re.compile(r"[ \t]+")
_WORD = re.compile(rf"[{_L}]+")
_BEFORE = re.compile(rf"([{_L}]+)[ \t]+$")
_LOOK_BACK = 64


def _is_name(word: str, verb: str) -> bool:
    return (
        bool(name_lexicon().get(word.casefold(), 0) & (FIRST | LAST))
        and zipf_frequency(word.lower(), "en") < MAX_ZIPF
        and word.casefold() not in NOT_PERSON_WORDS
        and (verb in PERSON_VERBS or place_key(word) not in place_names())
    )


def _verb(text: str, end: int, possessive: bool) -> str | None:
    """The verb of :data:`VERBS` that follows ``end`` (after adverbs), or the lower-case word after a
    possessive; None when neither does."""
    pos, adverbs = end, 0
    while True:
        gap = _GAP.match(text, pos)
        if gap is None:
            return None
        m = _WORD.match(text, gap.end())
        if m is None or not m.group().islower():
            return None
        word = m.group()
        if possessive or word in VERBS:
            return word
        if word not in ADVERBS or adverbs == 2:
            return None
        pos, adverbs = m.end(), adverbs + 1


def find_lone_names(text: str) -> list[NameCandidate]:
    """The lone names of ``text`` (see the module doc), in order."""
    out: list[NameCandidate] = []
    for m in _NAME.finditer(text):
        word = m.group("name")
        if word.isupper():
            continue
        before = _BEFORE.search(text, max(0, m.start() - _LOOK_BACK), m.start())
        if (
            before is not None
            and before.group(1)[0].isupper()
            and zipf_frequency(before.group(1).lower(), "en") < FUNCTION_ZIPF
        ):
            continue  # "Six Nations Barnes", "Biography McCann": part of a longer name, or not a name
        verb = _verb(text, m.end(), m.group("poss") is not None)
        if verb is None or not _is_name(word, verb):
            continue
        out.append((m.start(), m.end("name"), PERSON, "lone_name"))
    return out
