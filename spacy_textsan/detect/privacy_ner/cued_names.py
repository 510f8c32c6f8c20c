"""Names announced by their context: after a field label (``Patient:``,
``Signed:``), a salutation or closing (``Dear Ms Okafor,``, ``Kind regards,``)
or as the speaker of a chat or transcript turn (``Maria: hello``).

Pure functions over a string returning ``(start, end, label, rule_name)``
tuples (:data:`.names.NameCandidate`).
"""

import re

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

#: Field labels followed by a colon and a person's name in forms, records, e-mail headers and transcripts.
NAME_FIELDS = (
    "patient",
    "patient name",
    "name",
    "full name",
    "surname",
    "last name",
    "first name",
    "given name",
    "family name",
    "maiden name",
    "client",
    "client name",
    "customer",
    "customer name",
    "employee",
    "employee name",
    "applicant",
    "claimant",
    "defendant",
    "plaintiff",
    "appellant",
    "respondent",
    "accused",
    "witness",
    "victim",
    "suspect",
    "signed",
    "signature",
    "signed by",
    "from",
    "to",
    "cc",
    "bcc",
    "attn",
    "attention",
    "contact",
    "contact person",
    "candidate",
    "agent",
    "interviewer",
    "interviewee",
    "physician",
    "doctor",
    "gp",
    "consultant",
    "surgeon",
    "nurse",
    "referred by",
    "referring physician",
    "prepared by",
    "reviewed by",
    "approved by",
    "author",
    "manager",
    "line manager",
    "supervisor",
    "next of kin",
    "emergency contact",
    "mother",
    "father",
    "spouse",
    "partner",
    "guardian",
    "parent",
    "tenant",
    "landlord",
    "owner",
    "holder",
    "account holder",
    "cardholder",
    "beneficiary",
    "insured",
    "policyholder",
    "student",
    "pupil",
    "teacher",
    "tutor",
    "reporter",
    "caller",
    "judge",
    "counsel",
    "lawyer",
    "attorney",
    "solicitor",
    "president",
    "vice-president",
    "chair",
    "chairman",
    "chairwoman",
    "chairperson",
    "registrar",
    "deputy registrar",
    "section registrar",
    "rapporteur",
    "clerk",
    "secretary",
    "director",
    "ceo",
    "recruiter",
    "nom",
    "prénom",
    "nom de famille",
    "vorname",
    "nachname",
    "nombre",
    "apellidos",
    "nome",
    "cognome",
    "naam",
    "imię",
    "nazwisko",
    "adı",
    "soyadı",
    "adı soyadı",
)
#: Salutations and closings, followed by a name after an optional comma or line break.
SALUTATIONS = (
    "dear",
    "hi",
    "hello",
    "hey",
    "sincerely",
    "regards",
    "best regards",
    "kind regards",
    "warm regards",
    "yours sincerely",
    "yours faithfully",
    "yours truly",
    "best wishes",
    "many thanks",
    "thanks",
    "cheers",
    "signed",
    "signed by",
    "represented by",
    "bonjour",
    "cher",
    "chère",
    "liebe",
    "lieber",
    "hallo",
    "hola",
    "estimado",
    "estimada",
    "caro",
    "cara",
    "beste",
    "szanowny",
    "szanowna",
    "sayın",
)
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
#: Words that follow a cue but are not names ("Dear Sir", "To: All staff", "Name: N/A").
NOT_NAME_WORDS = frozenset(
    """
sir madam sirs madams colleague colleagues team all whom it concerned concern customer customers client
clients staff everyone everybody friends friend member members valued user users there n/a na none unknown
patient applicant the a an this that my our your his her their date time subject re fw fwd note notes
""".split()
)


#: Line labels that are given names in some locale ("Note", "Plan") but label a field here.
LABEL_WORDS = frozenset(
    """
note notes plan subject date time re fw fwd summary diagnosis history assessment impression result results
status reason comment comments action outcome update question answer reply system bot admin moderator
""".split()
)


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
