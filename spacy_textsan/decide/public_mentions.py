"""Mentions that single nobody out: what ``mask_optimizer``'s ``keep_public`` keeps visible.

A masking policy (``mask_labels``) masks every place, date and demographic of a text, and kanon_risk
counts every rare name of the background as a quasi-identifier. Some of those mentions name no
person's attribute at all; each kind below is one pure function over the text and a span's offsets
(English wording; another language's text is read by none of them):

* ``legislation``: the name of a law, ``Race Relations Act``, ``Asylum and Immigration Act 1996``,
  ``Brussels I Regulation``, ``the Constitutional Law`` (ends in Act, Regulation(s), Law, Code,
  Convention, Rules, Directive, Statute or Constitution, with its year);
* ``respondent_state``: the State a case is brought against, where the text names it as such: in the
  phrase of the application (``an application ... against the Republic of Turkey lodged``), before
  ``Government`` (``the United Kingdom Government``), after ``v.`` in a case name (``Smith v. the
  United Kingdom``), whatever the detector labels it (LOC, ORG, MISC, DEM; never PERSON). Its other
  mentions (``he moved to the United Kingdom``) are decided as before;
* ``group_role``: a demographic term for a group in the plural, lower case, ``police officers``,
  ``widowers``, ``trade union representatives`` (not a nationality: ``Turkish nationals`` stays; not one
  person's family: ``married with three children``, ``a father of four sons`` stay);
* ``procedural_date``: a date in a sentence about the court's own organisation or a law's entry into
  force (``On 1 November 2001 the Court changed the composition of its Sections``, ``... came into force
  on 1 November 1998``), the same in every judgment of its time;
* ``court_section``: a section of the court, ``the Fourth Section``;
* ``generic_time``: a time that is no point and no length of anyone's life: a frequency (``monthly``,
  ``annual``), a day named only by its place in the story (``the same day``, ``the next day``, ``that day``,
  ``the following months``), an unnumbered while (``many years``, ``several months``), a century
  (``the 20th century``, ``the late 19th century``, ``the 17th, 18th and 19th centuries``); not ``three
  months``, ``1998``, ``winter`` or ``the age of sixty``;
* ``government``: the State as a party, a name or adjective right before ``Government`` (``the Turkish
  Government``, ``the Swedish Government``: a party to the case, not a person's nationality);
* ``legal_order``: a State's name or adjective that names its law, right before ``law``, ``legislation``,
  ``statute`` or ``case-law`` (``under United Kingdom law``, ``Turkish legislation``): the legal order, not
  a person's attribute (not before ``courts`` or ``authorities``, which act on the person somewhere);
* ``institution_seat``: the seat of an institution, a place right after its name and a comma (``the
  Foreign and Commonwealth Office, London``, ``the Ministry of Justice, Ankara``);
* ``state_body``: a body of a State's executive named by what it does, every word from a closed list of
  government functions: ``the Ministry of the Interior``, ``Benefits Agency``, ``the Revenue Department``,
  ``the Foreign and Commonwealth Office``, ``Directorate of Income``, ``the Federal Ministry of Justice``,
  ``Immigration Appeals Board``, ``International Law Department`` (not ``the Ankara Security
  Directorate`` or ``Çiğli Directorate of Land Registration``: a place narrows it to a town);
* ``office_title``: the title of an office, without a name, every word but the last from a closed list of
  ranks: ``the Commanding Officer``, ``the Chief Public Prosecutor``, ``Military Public Prosecutor``,
  in lower case right after ``the``: ``the principal public prosecutor`` (not ``a public prosecutor``:
  someone's job; not ``Prosecutor Yılmaz``, nor a title that names one person: ``Prime Minister``, ``Governor``);
* ``generic_court``: a court named by its kind alone, every word from a closed list of kinds, ranks and
  divisions of courts: ``the Supreme Administrative Court``, ``Court of Cassation``, ``the District
  Court``, ``5th Chamber of the Supreme Administrative Court`` (not ``Istanbul State Security Court`` or
  ``Söke Labour Court``: a place narrows it to a town; not a court's name in its own language; not a
  tribunal, ``the Employment Tribunal``, whose name says what the person's dispute was about).

Direct identifiers and the special categories (``mask_kb_classes``) are never kept by these rules, and
reid_risk, which runs after the decision, still masks a kept mention when the attack needs it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property

__all__ = ["PUBLIC_KINDS", "PUBLIC_REASON", "PublicText", "respondent_state"]

#: how a kept public mention's reason starts (``kept: public (legislation)``): the leak sweep of the
#: generalizer reads it
PUBLIC_REASON = "kept: public"

_LAW = re.compile(
    r"(?:^|\s)(?:Act|Regulations?|Law|Code|Convention|Rules|Directive|Statute|Constitution)(?:,? (?:1[89]|20)\d\d)?$"
)
#: the State of an application: "against the Republic of Turkey lodged", "against Sweden, lodged"
_RESPONDENT = re.compile(
    r"\bagainst (?:the )?((?:[A-Z][\w’'-]+ )*?[A-Z][\w’'-]+(?: (?:of|and) (?:the )?(?:[A-Z][\w’'-]+ ?)+)*?)"
    r"(?= lodged|,| \(| under| by)"
)
_STATE_FORM = re.compile(r"^(?:Republic|Kingdom|Federal Republic|Principality|Grand Duchy|Confederation) of (?:the )?")
#: the labels a State's name gets from the detectors (a person's name is never the respondent)
_STATE_LABELS = frozenset({"LOC", "ORG", "MISC", "DEM"})
_CASE_NAME_BEFORE = re.compile(r"\bv(?:\.|s\.?) (?:the )?$")
_NATIONALITY = re.compile(r"\bnationals?\b|\bcitizens?\b")
_PLURAL = re.compile(r"[a-z](?<!s)s$|(?:men|women|people|children|staff|police)$")
#: words that make a plural one person's attribute, not a group (``married with three children``, ``a father
#: of four sons``)
_ONE_PERSON = re.compile(
    r"\b(?:married|divorced|separated|widowed|engaged|single|with|of (?:one|two|three|four|five|six|seven|eight|nine|ten|\d+))\b"
)
_PROCEDURE = re.compile(r"composition of its Sections|\b(?:came|come|comes|entered|enter|enters) into force\b")
_GENERIC_TIME = re.compile(
    r"^(?:"
    r"(?:bi-?)?(?:daily|weekly|fortnightly|monthly|quarterly|yearly|annual|annually)"
    r"|(?:(?:the|that|this|these|those|every|each) )?(?:(?:same|next|following|previous|preceding|subsequent) )?"
    r"(?:day|days|week|weeks|month|months|year|years)"
    r"|(?:many|several|some|a few) (?:days|weeks|months|years)"
    r"|(?:the )?(?:(?:early|mid|late)[ -])?\d{1,2}(?:st|nd|rd|th)(?:(?:,| and| or|, and) \d{1,2}(?:st|nd|rd|th))*"
    r"[ -]centur(?:y|ies)"
    r")$"
)
_SECTION = re.compile(r"^(?:the )?(?:First|Second|Third|Fourth|Fifth|Sixth) Section$")
#: the end of a sentence: not the dot of "Protocol No. 11", "Art. 6", "p. 12" ("... on 1 November 1998, when
#: Protocol No. 11 to the Convention came into force")
_SENTENCE_END = re.compile(
    r"[;\n]|(?<!\bNo)(?<!\bno)(?<!\bNos)(?<!\bnos)(?<!\bArt)(?<!\bart)(?<!\bpara)(?<!\bp)(?<!\bpp)\."
)
_LEGAL_ORDER = re.compile(r" (?:law|laws|legislation|statutes?|legal system|case-law)\b")
_SEAT = re.compile(
    r"\b(?:Office|Ministry|Department|Agency|Directorate|Embassy|Consulate|Secretariat)(?: of (?:the )?[A-Z][\w ]*)?, $"
)


#: what a body of the executive does (state_body): a closed list, so that no place or person is among them
_FUNCTIONS = frozenset(
    """affairs agriculture aid appeals benefits cabinet child commonwealth communities criminal crown culture customs
    defence development economy education employment energy environment european excise family finance fisheries
    foreign forestry general health highways home housing immigration income industry inland interior internal
    international justice labour land lands law legal national passport pensions prosecution prosecutions public
    records registration registry revenue roads security services social state surveys tax taxation trade transport
    treasury welfare work works""".split()
)
_BODIES = frozenset("agency board department directorate inspectorate ministry office secretariat service".split())
_LINKS = frozenset({"and", "of", "for", "the"})
#: ranks of an office (office_title) and the offices themselves (none held by one person only)
_RANKS = frozenset(
    "acting assistant chief commanding crown deputy district general military principal public senior".split()
)
_OFFICES = frozenset("commander inspector officer prosecutor registrar".split())
#: what a court is called by its kind (generic_court): no place, person or language-specific name among them
_COURT_WORDS = frozenset(
    """administrative appeal appeals assize assizes bench cassation chamber chambers civil constitutional county court
    courts criminal crown disciplinary district division employment family federal first full grand high instance
    juvenile labour magistrates military plenary regional section security social state superior supreme""".split()
)
_COURTS = frozenset({"court", "courts"})
#: the word right before a mention, with a space between
_WORD_BEFORE = re.compile(r"([^\W\d_][\w’'-]*) $")
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)$")
_ORDINAL_START = re.compile(r"^(?:the )?\d+(?:st|nd|rd|th) ")
_WORD = re.compile(r"[^\W\d_]+(?:[’'][^\W\d_]+)*")


def _name_words(text: str) -> list[str]:
    """The words of a name, lower case, without a leading article or a possessive ``'s``."""
    words = [w.casefold() for w in _WORD.findall(text)]
    if words and words[0] == "the":
        words = words[1:]
    return [re.sub(r"[’']s$", "", w) for w in words]


def _titled(text: str) -> bool:
    """Whether a name is written with a capital (after a leading article): a title, not a description."""
    return text.removeprefix("the ")[:1].isupper()


def _state_body(doc: PublicText, s: int, e: int, label: str) -> bool:
    words = _name_words(doc.text[s:e])
    if words[:1] == ["federal"]:  # the Federal Ministry of Justice: a federation's, not a place's
        words = words[1:]
    if label != "ORG" or len(words) < 2 or not _titled(doc.text[s:e]):
        return False
    body = [i for i, w in enumerate(words) if w in _BODIES]
    if not body or body[0] not in (0, len(words) - 1):
        return False
    rest = [w for i, w in enumerate(words) if i != body[0]]
    return any(w in _FUNCTIONS for w in rest) and all(w in _FUNCTIONS or w in _LINKS for w in rest)


def _office_title(doc: PublicText, s: int, e: int, label: str) -> bool:
    text = doc.text[s:e]
    words = _name_words(text)
    # written as a title, or in lower case as the office that acts in the case: "the public prosecutor"
    # (not "a public prosecutor", "as public prosecutor": someone's job)
    definite = text.startswith("the ") or doc.text[max(0, s - 4) : s] in ("the ", "The ")
    return (
        label in ("ORG", "DEM", "MISC")
        and len(words) >= 2
        and (_titled(text) or definite)
        and words[-1] in _OFFICES
        and all(w in _RANKS for w in words[:-1])
    )


def _generic_court(doc: PublicText, s: int, e: int, label: str) -> bool:
    text = doc.text[s:e]
    before = _WORD_BEFORE.search(doc.text, max(0, s - 40), s)
    if (
        label != "ORG"
        or not _titled(_ORDINAL_START.sub("", text))
        or (before and before.group(1)[0].isupper() and before.group(1) != "The")
    ):
        return False  # "Söke Labour Court" read as "Söke" and "Labour Court": the town narrows it
    words = [w.casefold() for w in re.findall(r"[^\W_]+", re.sub(r"[’']s$", "", text.removeprefix("the ")))]
    return (
        any(w in _COURTS for w in words)
        and any(w not in _COURTS for w in words)
        and all(w in _COURT_WORDS or w in _LINKS or _ORDINAL.match(w) for w in words)
    )


def respondent_state(text: str, window: int = 3000) -> str | None:
    """The State the application of ``text`` is brought against, as written there (``Republic of
    Turkey``, ``United Kingdom of Great Britain and Northern Ireland``), or None: the first
    ``against the <Name> lodged``-style phrase in the first ``window`` characters."""
    m = _RESPONDENT.search(text[:window])
    return m.group(1).strip() if m else None


def _state_names(state: str) -> tuple[str, ...]:
    """The respondent's name and its short form (``Republic of Turkey``, ``Turkey``; ``United Kingdom of
    Great Britain and Northern Ireland``, ``United Kingdom``)."""
    short = _STATE_FORM.sub("", state)
    short = re.sub(r" of Great Britain and Northern Ireland$", "", short)
    return (state, short) if short != state else (state,)


class PublicText:
    """One document's text, read for its public mentions (what they share is read once)."""

    def __init__(self, text: str, kinds: tuple[str, ...] | list[str] = ()) -> None:
        unknown = sorted(set(kinds) - set(PUBLIC_KINDS))
        if unknown:
            raise ValueError(f"keep_public: unknown kind {unknown[0]!r}: the kinds are {', '.join(PUBLIC_KINDS)}")
        self.text = text
        self.kinds = tuple(kinds)

    @cached_property
    def state(self) -> str | None:
        """The respondent State (:func:`respondent_state`)."""
        return respondent_state(self.text)

    @cached_property
    def state_names(self) -> tuple[str, ...]:
        """The respondent's name and its short form (:func:`_state_names`; none without a respondent)."""
        return _state_names(self.state) if self.state is not None else ()

    @cached_property
    def state_at(self) -> int:
        """Where the respondent's name first stands in the text (-1: nowhere, or no respondent)."""
        return self.text.find(self.state) if self.state is not None else -1

    def kind(self, start: int, end: int, label: str) -> str | None:
        """The first of the kinds that the mention ``text[start:end]`` (label ``label``) is, or None."""
        for kind in self.kinds:
            if PUBLIC_KINDS[kind](self, start, end, label):
                return kind
        return None


def _respondent_mention(doc: PublicText, start: int, end: int, label: str) -> bool:
    text, state = doc.text, doc.state
    # whatever a detector calls it (LOC, or ORG for "the United Kingdom of Great Britain and Northern Ireland")
    if label not in _STATE_LABELS or state is None:
        return False
    mention = re.sub(r"^the ", "", text[start:end])
    if not any(mention in name for name in doc.state_names):
        return False
    at = doc.state_at
    if at >= 0 and at <= start and end <= at + len(state):  # in the phrase of the application
        return True
    return text.startswith(" Government", end) or _CASE_NAME_BEFORE.search(text[max(0, start - 8) : start]) is not None


def _sentence(text: str, start: int, end: int) -> str:
    before = [m.end() for m in _SENTENCE_END.finditer(text, max(0, start - 400), start)]
    after = _SENTENCE_END.search(text, end)
    return text[before[-1] if before else max(0, start - 400) : after.start() if after else len(text)]


def _group_role(doc: PublicText, s: int, e: int, label: str) -> bool:
    words = doc.text[s:e]
    return (
        label == "DEM"
        and words[:1].islower()
        and _PLURAL.search(words) is not None
        and not _NATIONALITY.search(words)
        and not _ONE_PERSON.search(words)
    )


#: kind -> test(document, start, end, label): the kinds ``keep_public`` may name
PUBLIC_KINDS: dict[str, Callable[[PublicText, int, int, str], bool]] = {
    "legislation": lambda doc, s, e, label: label != "PERSON" and _LAW.search(doc.text[s:e]) is not None,
    "respondent_state": _respondent_mention,
    "group_role": _group_role,
    "procedural_date": lambda doc, s, e, label: (
        label == "DATETIME" and _PROCEDURE.search(_sentence(doc.text, s, e)) is not None
    ),
    "court_section": lambda doc, s, e, label: _SECTION.match(doc.text[s:e]) is not None,
    "generic_time": lambda doc, s, e, label: (
        label == "DATETIME" and _GENERIC_TIME.match(" ".join(doc.text[s:e].lower().split())) is not None
    ),
    "government": lambda doc, s, e, label: (
        label in ("DEM", "LOC", "MISC", "ORG") and doc.text.startswith(" Government", e)
    ),
    "legal_order": lambda doc, s, e, label: (
        label in ("LOC", "DEM", "MISC") and _LEGAL_ORDER.match(doc.text, e) is not None
    ),
    "institution_seat": lambda doc, s, e, label: (
        label == "LOC" and _SEAT.search(doc.text[max(0, s - 80) : s]) is not None
    ),
    "state_body": _state_body,
    "office_title": _office_title,
    "generic_court": _generic_court,
}
