"""Names announced by their context: after a field label (``Patient:``,
``Signed:``, ``Kontakt:``), a salutation or closing (``Dear Ms Okafor,``,
``Kind regards,``, ``Hej Sven``, ``Mvh Sven``), as the speaker of a chat or
transcript turn (``Maria: hello``), or as the holder of a national
identification number just before (``Personnummer 811218-9876 tillhör Sven``).
A single given name is a name there.

Pure functions over a string returning ``(start, end, label, rule_name)``
tuples (:data:`.names.NameCandidate`); :func:`find_cued_names_and_cues` also
returns where the cue words are, which name no one themselves.
"""

import re
from collections.abc import Sequence
from functools import lru_cache

from ...calendar_names import day_names, english_month_forms
from .adjacent_names import is_given_name
from .lang_data import read_list, read_set
from .names import (
    FIRST,
    LAST,
    LATIN_LETTERS,
    PARTICLES,
    PERSON,
    NameCandidate,
    is_common_word,
    is_first_name,
    name_lexicon,
    non_overlapping,
)
from .rules import first_words, matches_at_words, titles

#: Field labels followed by a colon and a person's name in forms, records, e-mail headers and transcripts:
#: ``data/name_fields.txt``.
NAME_FIELDS: tuple[str, ...] = read_list("en", "name_fields.txt")
#: The same in other languages (contacts, e-mail headers, signatures): ``data/contact_cues.txt``.
CONTACT_CUES: tuple[str, ...] = read_list("en", "contact_cues.txt")
#: Salutations and closings, followed by a name after an optional comma or line break:
#: ``data/salutations.txt``.
SALUTATIONS: tuple[str, ...] = read_list("en", "salutations.txt")
#: Greetings and sign-offs of other languages: ``data/greetings.txt``.
GREETINGS: tuple[str, ...] = read_list("en", "greetings.txt")
_NAME_WORD = rf"(?:[A-Z][{LATIN_LETTERS}'’\-]*[{LATIN_LETTERS}]|[A-Z]\.|[A-Z][{LATIN_LETTERS}]*)"
_NAME = (
    rf"(?P<name>{_NAME_WORD}(?:[ \t]+(?:(?:{'|'.join(sorted(PARTICLES))})[ \t]+)?{_NAME_WORD}){{0,3}})"
    r"(?=$|[\s,.;:!?)<'’\"]|['’]s\b)"
)


def _cue_alternation(cues) -> str:
    return "|".join(sorted((re.escape(c).replace(r"\ ", r"[ \t]+") for c in cues), key=len, reverse=True))


@lru_cache(maxsize=8)
def _cued_name_pattern(lang: str) -> tuple[re.Pattern[str], frozenset[str]]:
    """A field label or contact cue and a colon, or a salutation, before a name, with the words of
    language ``lang`` (:mod:`.lang_data`); and the first words of the cues, where it is tried."""
    fields = read_list(lang, "name_fields.txt") + read_list(lang, "contact_cues.txt")
    greetings = read_list(lang, "salutations.txt") + read_list(lang, "greetings.txt")
    pattern = re.compile(
        r"(?<![\w])(?P<cue>(?i:"
        + _cue_alternation(fields)
        + r"))(?!\w)(?:[ \t]*:[ \t]*|\t+)"
        + _NAME
        + r"|(?<![\w])(?P<cue2>(?i:"
        + _cue_alternation(greetings)
        + r"))(?!\w)[ \t]*,?[ \t]*(?:\r?\n[ \t]*){0,2}"
        + _NAME.replace("?P<name>", "?P<name2>"),
        re.MULTILINE,
    )
    return pattern, first_words(fields + greetings)


_CUED_NAME, _CUE_STARTS = _cued_name_pattern("en")
#: A chat or transcript turn: "Maria: Hello", "[10:02] Peder H.: ok", "Agent (Tom): ..."
_SPEAKER = re.compile(
    r"^[ \t]*(?P<stamp>\[[\d:. ]+\][ \t]*|\d{1,2}:\d{2}(?::\d{2})?[ \t]+)?"
    r"(?:(?:Agent|Customer|Caller|User|Operator|Support)[ \t]*\([ \t]*)?"
    rf"(?P<name>{_NAME_WORD}(?:[ \t]+{_NAME_WORD}){{0,2}})[ \t]*\)?[ \t]*:",
    re.MULTILINE,
)
#: Words that follow a cue but are not names ("Dear Sir", "To: All staff", "Name: N/A"):
#: ``data/not_name_words.txt``.
NOT_NAME_WORDS = read_set("en", "not_name_words.txt")


#: Line labels that are given names in some locale ("Note", "Plan") but label a field here:
#: ``data/label_words.txt``.
LABEL_WORDS = read_set("en", "label_words.txt")


def _plausible_cued_name(name: str, not_names: frozenset[str] = NOT_NAME_WORDS) -> bool:
    words = [w for w in re.split(r"[ \t]+", name) if w.lower() not in PARTICLES]
    if not words or (words[0].lower() in not_names and not re.fullmatch(r"[A-Z]\.", words[0])):
        return False
    if all(is_common_word(w) and not name_lexicon().get(w.casefold(), 0) & (FIRST | LAST) for w in words):
        return False
    return any(len(w.rstrip(".")) > 1 for w in words)


def find_cued_names(text: str) -> list[NameCandidate]:
    """Names after a field label or salutation (``Patient: Julian Middleton``,
    ``Dear Ms Okafor,``, ``Signed: P. Halvorsen``, ``Kontakt: Sven``, ``Mvh
    Sven``) and chat speakers whose first word is a known first name
    (``Maria: hello``)."""
    return find_cued_names_and_cues(text)[0]


def find_cued_names_and_cues(text: str, lang: str = "en") -> tuple[list[NameCandidate], list[tuple[int, int]]]:
    """:func:`find_cued_names`, and the ``(start, end)`` of the cue word of
    each name after a label or a salutation (``Kontakt``, ``Dear``), which
    names no one: a statistical NER that reads it into a name ("Dear Sven"
    as one ORG) is wrong there. A cue that is itself a given name ("Cara",
    Italian "dear") is left out: it may start a name. The cues, titles and
    words that are no names are language ``lang``'s (:mod:`.lang_data`)."""
    out: list[NameCandidate] = []
    cues: list[tuple[int, int]] = []
    pattern, starts = _cued_name_pattern(lang)
    title_words, not_names = titles(lang), read_set(lang, "not_name_words.txt")
    for m in matches_at_words(pattern, text, starts):
        group, cue = ("name", "cue") if m.group("name") is not None else ("name2", "cue2")
        name = m.group(group)
        # a title after the cue ("Dear Ms Okafor") is not part of the name
        start = m.start(group)
        first, _, rest = name.partition(" ")
        if first.rstrip(".").lower() in title_words and rest:
            start += len(first) + 1
            name = rest.lstrip()
        if _plausible_cued_name(name, not_names):
            out.append((start, start + len(name), PERSON, "cued_name"))
            if not is_first_name(m.group(cue)):
                cues.append(m.span(cue))
    for m in _SPEAKER.finditer(text):
        name = m.group("name")
        first = re.split(r"[ \t]+", name)[0]
        # a timestamped turn names its speaker; an untimed "Word:" only when Word is a known given name
        known = m.group("stamp") or name_lexicon().get(first.casefold(), 0) & FIRST
        if known and first.lower() not in read_set(lang, "label_words.txt") and _plausible_cued_name(name, not_names):
            out.append((m.start("name"), m.end("name"), PERSON, "speaker"))
    return non_overlapping(out), cues


#: Between a national identification number and the given name of its holder: a comma, a colon or a
#: dash, and up to three lower-case words ("tillhör", "belongs to", "appartient à").
_AFTER_ID = re.compile(
    rf"[ \t]{{0,3}}[,:;(–-]?[ \t]{{0,3}}(?:[a-zß-öø-ÿ][{LATIN_LETTERS}]{{0,30}}[ \t]{{1,3}}){{0,3}}"
    rf"(?P<name>[A-Z][{LATIN_LETTERS}'’\-]{{0,40}}[{LATIN_LETTERS}])(?![\w'’\-])"
)


#: English month and day names, some of them given names too ("May", "June"): no holder after a number.
_CALENDAR_WORDS = frozenset(english_month_forms()) | frozenset(day_names("en"))


def find_names_after_ids(text: str, ids: Sequence[tuple[int, int]]) -> list[NameCandidate]:
    """A given name just after a national identification number ``(start,
    end)`` of ``ids``, on its line, names the number's holder
    (``Personnummer 811218-9876 tillhör Sven``, ``CPR 211062-5629: Mette``):
    ``(start, end, "PERSON", "name_after_id")``; a surname after it joins
    it later (:mod:`.adjacent_names`)."""
    out: list[NameCandidate] = []
    for _, end in ids:
        m = _AFTER_ID.match(text, end)
        if m is None or m.group("name") in _CALENDAR_WORDS:
            continue  # "issued on May 3": a month
        if is_given_name(text, m.start("name"), m.end("name")):
            out.append((m.start("name"), m.end("name"), PERSON, "name_after_id"))
    return out
