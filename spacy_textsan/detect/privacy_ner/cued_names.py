"""Names announced by their context: after a field label (``Patient:``,
``Signed:``), a salutation or closing (``Dear Ms Okafor,``, ``Kind regards,``)
or as the speaker of a chat or transcript turn (``Maria: hello``).

Pure functions over a string returning ``(start, end, label, rule_name)``
tuples (:data:`.names.NameCandidate`).
"""

import re

from ...word_lists import word_list, word_set
from .names import (
    FIRST,
    LAST,
    LATIN_LETTERS,
    PARTICLES,
    PERSON,
    NameCandidate,
    is_common_word,
    name_lexicon,
    non_overlapping,
)
from .rules import TITLES

#: Field labels followed by a colon and a person's name in forms, records, e-mail headers and transcripts:
#: ``data/name_fields.txt``.
NAME_FIELDS: tuple[str, ...] = word_list("detect/privacy_ner/data/name_fields.txt")
#: Salutations and closings, followed by a name after an optional comma or line break:
#: ``data/salutations.txt``.
SALUTATIONS: tuple[str, ...] = word_list("detect/privacy_ner/data/salutations.txt")
_NAME_WORD = rf"(?:[A-Z][{LATIN_LETTERS}'’\-]*[{LATIN_LETTERS}]|[A-Z]\.|[A-Z][{LATIN_LETTERS}]*)"
_NAME = (
    rf"(?P<name>{_NAME_WORD}(?:[ \t]+(?:(?:{'|'.join(sorted(PARTICLES))})[ \t]+)?{_NAME_WORD}){{0,3}})"
    r"(?=$|[\s,.;:!?)<'’\"]|['’]s\b)"
)


def _cue_alternation(cues) -> str:
    return "|".join(sorted((re.escape(c).replace(r"\ ", r"[ \t]+") for c in cues), key=len, reverse=True))


_CUED_NAME = re.compile(
    r"(?<![\w])(?i:"
    + _cue_alternation(NAME_FIELDS)
    + r")(?!\w)(?:[ \t]*:[ \t]*|\t+)"
    + _NAME
    + r"|(?<![\w])(?i:"
    + _cue_alternation(SALUTATIONS)
    + r")(?!\w)[ \t]*,?[ \t]*(?:\r?\n[ \t]*){0,2}"
    + _NAME.replace("?P<name>", "?P<name2>"),
    re.MULTILINE,
)
#: A chat or transcript turn: "Maria: Hello", "[10:02] Peder H.: ok", "Agent (Tom): ..."
_SPEAKER = re.compile(
    r"^[ \t]*(?P<stamp>\[[\d:. ]+\][ \t]*|\d{1,2}:\d{2}(?::\d{2})?[ \t]+)?"
    r"(?:(?:Agent|Customer|Caller|User|Operator|Support)[ \t]*\([ \t]*)?"
    rf"(?P<name>{_NAME_WORD}(?:[ \t]+{_NAME_WORD}){{0,2}})[ \t]*\)?[ \t]*:",
    re.MULTILINE,
)
#: Words that follow a cue but are not names ("Dear Sir", "To: All staff", "Name: N/A"):
#: ``data/not_name_words.txt``.
NOT_NAME_WORDS = word_set("detect/privacy_ner/data/not_name_words.txt")


#: Line labels that are given names in some locale ("Note", "Plan") but label a field here:
#: ``data/label_words.txt``.
LABEL_WORDS = word_set("detect/privacy_ner/data/label_words.txt")


def _plausible_cued_name(name: str) -> bool:
    words = [w for w in re.split(r"[ \t]+", name) if w.lower() not in PARTICLES]
    if not words or (words[0].lower() in NOT_NAME_WORDS and not re.fullmatch(r"[A-Z]\.", words[0])):
        return False
    if all(is_common_word(w) and not name_lexicon().get(w.casefold(), 0) & (FIRST | LAST) for w in words):
        return False
    return any(len(w.rstrip(".")) > 1 for w in words)


def find_cued_names(text: str) -> list[NameCandidate]:
    """Names after a field label or salutation (``Patient: Julian Middleton``,
    ``Dear Ms Okafor,``, ``Signed: P. Halvorsen``) and chat speakers whose
    first word is a known first name (``Maria: hello``)."""
    out: list[NameCandidate] = []
    for m in _CUED_NAME.finditer(text):
        group = "name" if m.group("name") is not None else "name2"
        name = m.group(group)
        # a title after the cue ("Dear Ms Okafor") is not part of the name
        start = m.start(group)
        first, _, rest = name.partition(" ")
        if first.rstrip(".").lower() in TITLES and rest:
            start += len(first) + 1
            name = rest.lstrip()
        if _plausible_cued_name(name):
            out.append((start, start + len(name), PERSON, "cued_name"))
    for m in _SPEAKER.finditer(text):
        name = m.group("name")
        first = re.split(r"[ \t]+", name)[0]
        # a timestamped turn names its speaker; an untimed "Word:" only when Word is a known given name
        known = m.group("stamp") or name_lexicon().get(first.casefold(), 0) & FIRST
        if known and first.lower() not in LABEL_WORDS and _plausible_cued_name(name):
            out.append((m.start("name"), m.end("name"), PERSON, "speaker"))
    return non_overlapping(out)
