"""The label of a chosen candidate, settled from all the evidence about it, in one place.

:func:`.combine.resolve_overlaps` keeps one candidate per stretch of text, with the label of the
detector that found it: a phone number's shape where the text gives a date of birth, a small NER's
PERSON where the text names a religion. :func:`settle_labels` then reads, for each chosen candidate,
what else is known about its characters and settles its label on the strongest evidence, in this
order:

1. **Other detectors of the same characters.** A number read by a shape alone (``id:phone``,
   ``id:bare_number``, ``rule:file_number``...) that a detector of meaning read the same way (a
   postcode of an address, a date) takes that detector's label; a NER's span that is mostly a date
   or an age of the rule layer takes its label ("nacido el 3 de junio de 1957").
2. **Shape.** A code shaped as a date (``23/06/1962``, ``1960-07-28``) is a DATETIME unless a code
   cue is right before it (``file no. 12/05/1998``); a PERSON without a letter is a CODE; a
   foreign-script name that ends like a place (``place_endings.txt``: "양주시", "大田区") is a LOC.
3. **Firm words.** A legal form or trade word after a name (``data/<lang>/org_suffixes.txt`` and
   Faker's company suffixes: "Solicitors", "LLC", "GmbH", "有限公司") or before it
   (``org_prefixes.txt``: "(주)", "ООО") makes an ORG, which takes the word in.
4. **Address lines.** After an address cue (``address_cues.txt``: "His registered address was",
   "Address:", "send the parcel to") up to the end of the line or sentence, and in the lines under a
   titled name at the top of a letter, a name, a foreign-script word or a postcode-shaped number is
   part of the address (LOC).
5. **Frames.** The words around a candidate (``*`` in ``place_frames.txt``, ``dem_frames.txt``,
   ``org_frames.txt``): "lives in *" makes a place, "of * origin" or "* national" a DEM, "works for *"
   a firm when the candidate reads as one (a list of names, a single word that is no given name),
   "*, solicitors" a firm.
6. **DEM words.** A religion, an ethnic group or a health condition (``dem_words.txt``) is DEM
   whatever a NER or a cued place read it as ("Crohn" of "Crohn's disease" takes the rest in); so is
   a NER's name without a capital letter that the gazetteer's knowledge base knows as a DEM only ("lorry
   driver").

A candidate only changes its label, or grows over free characters next to it (a suffix, a prefix,
the rest of a firm's list of names): what was masked stays masked. A settled candidate's source gets
``+label:<rule>``. Pure functions over a string and :class:`~.combine.Candidate` tuples.
"""

import importlib
import pkgutil
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from ..gazetteer.kb import load_shared_kb
from ..gazetteer.paths import default_kb_path
from .combine import CUE, PRIORITY_DENY, Candidate
from .lang_data import read_list
from .names import is_first_name
from .rules import titles

__all__ = ["LabelCues", "address_regions", "is_date_shaped", "label_cues", "settle_labels"]

#: Sources that read a number by its shape alone: another detector's reading of the same characters wins.
SHAPE_SOURCES = frozenset(
    {
        "id:bare_number",
        "id:long_number",
        "id:phone",
        "rule:phone",
        "rule:file_number",
        "rule:application_number",
        "id:mixed_code",
    }
)
#: Labels a NER or the name layer gives to a word it cannot read: what a frame or a word list may change.
_NAME_LABELS = frozenset({"PERSON", "ORG", "LOC", "MISC"})
#: The labels of direct identifiers: one settled as another label stays a direct identifier.
_DIRECT = frozenset({"PERSON", "CODE"})
#: Labels of the rule layer's readings of meaning that a NER's span mostly made of one takes.
_MEANINGS = frozenset({"DATETIME", "DEM", "QUANTITY"})
#: Company suffixes of Faker's providers that are ordinary words or abbreviations in a text ("BA" a
#: degree, "CV", "AD", "URL", "LOC"): not read as a legal form.
_NOT_FORMS = frozenset(
    "AD BA CON CV EP ET LOC OC1 OC2 OC3 RA SD URL ry OG HB KD SPI ASF AFJ PFA CRL SEM EPIC San. Tic. Ky".split()
)
#: Words before a number that make it a reference, not a date, besides the code cues (``code_cues.txt``):
#: "file no. 12/05/1998", "case number 03/04/05".
_NUMBER_WORDS = ("no", "nº", "n°", "number", "ref", "file", "case")
_LETTER = re.compile(r"[^\W\d_]")
#: Scripts written without spaces (CJK, Kana, Hangul, Thai): a legal form joins the name without one.
_DENSE = re.compile(r"[\u0e00-\u0eff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_NUMERIC_DATE = re.compile(r"(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})|(\d{4})([./-])(\d{1,2})\6(\d{1,2})")
_POSTCODE = re.compile(r"\d{4,7}|\d{3,5}[- ]\d{3,4}")
#: Where an address line ends: a line break, a number's final period, a sentence's end.
_ADDRESS_END = re.compile(r"\n|(?<=\d)\.(?=\s|$)|[.!?;](?=\s+[A-Z][a-z])")
_MAX_ADDRESS = 200
#: A conjunction between the last two names of a firm ("Dean, Allen and Short", "Arnesen og Sivertsen").
_AND = r"(?:and|&|og|och|en|e|y|i|und|et|és|и|ve)"
_FIRM_NAME = r"(?:[A-Z\u00c0-\u00de][\w'’-]*|[^\W\d_A-Za-z\u00c0-\u024f][\w'’-]*)"
_FIRM_LIST = re.compile(rf"{_FIRM_NAME}(?:,[ \t]+{_FIRM_NAME}){{0,3}},?[ \t]+{_AND}[ \t]+{_FIRM_NAME}(?![\w'’-])")


def _form_regex(forms: Sequence[str]) -> str:
    """An alternation of ``forms`` (longest first), a final "." optional, spaces flexible."""
    parts = sorted({f.rstrip(".") for f in forms if f.rstrip(".")}, key=lambda f: (-len(f), f))
    return "|".join(r"[ \t]+".join(re.escape(w).replace("'", "['’]") for w in f.split()) for f in parts)


#: A frame's words before ``*`` and after it, each compiled (None where it has none).
Frame = tuple[re.Pattern[str] | None, re.Pattern[str] | None]


def _frames(frames: Sequence[str]) -> tuple[Frame, ...]:
    """``(before, after)`` of each ``... * ...`` frame: the words before ``*`` (searched up to the
    candidate's start) and after it (matched from its end), any case, spaces and line breaks alike."""
    out = []
    for frame in frames:
        before, _, after = frame.partition("*")
        out.append((_words_regex(before.split(), before=True), _words_regex(after.split(), before=False)))
    return tuple(out)


def _words_regex(tokens: Sequence[str], before: bool) -> re.Pattern[str] | None:
    """The words ``tokens`` in a row: spaces between two words, any spaces around punctuation."""
    if not tokens:
        return None
    body = re.escape(tokens[0])
    for prev, token in zip(tokens, tokens[1:], strict=False):
        body += (r"\s+" if prev[-1].isalnum() and token[0].isalnum() else r"\s*") + re.escape(token)
    if before:
        space = r"\s+" if tokens[-1][-1].isalnum() else r"\s*"
        return re.compile(rf"(?<![\w'’-]){body}{space}\Z", re.I)
    lead = r"\s+" if tokens[0][0].isalnum() else r"\s*"
    tail = r"(?![\w'’-])" if tokens[-1][-1].isalnum() else ""
    return re.compile(rf"{lead}{body}{tail}", re.I)


def _faker_company_suffixes() -> list[str]:
    """The company suffixes of Faker's company providers, every locale, less :data:`_NOT_FORMS`."""
    import faker.providers.company as company

    out: list[str] = []
    for module in pkgutil.iter_modules(company.__path__):
        try:
            provider = importlib.import_module(f"{company.__name__}.{module.name}").Provider
        except (ImportError, AttributeError):  # pragma: no cover - a locale without a provider
            continue
        out += [s.strip() for s in getattr(provider, "company_suffixes", ()) if s.strip()]
    return [s for s in dict.fromkeys(out) if s not in _NOT_FORMS]


@dataclass(frozen=True)
class LabelCues:
    """The compiled word lists of one language that :func:`settle_labels` reads."""

    dem_words: re.Pattern[str]
    dem_frames: tuple[Frame, ...]
    place_frames: tuple[Frame, ...]
    org_frames: tuple[Frame, ...]
    org_suffix_end: re.Pattern[str]
    org_suffix_after: re.Pattern[str]
    org_dense_suffixes: tuple[str, ...]
    org_prefix_start: re.Pattern[str]
    org_prefix_before: re.Pattern[str]
    address_cue: re.Pattern[str]
    code_cue_before: re.Pattern[str]
    titles: frozenset[str]
    place_endings: tuple[str, ...]


@lru_cache(maxsize=8)
def label_cues(lang: str = "en") -> LabelCues:
    """The lists of language ``lang`` (``data/<lang>/``, else English's), compiled once."""
    suffixes = list(read_list(lang, "org_suffixes.txt")) + _faker_company_suffixes()
    spaced = [s for s in suffixes if not _DENSE.match(s)]
    spaced += [s.lower() for s in spaced if re.fullmatch(r"[A-Z][a-z]{3,}", s)]
    dense = tuple(sorted({s for s in suffixes if _DENSE.match(s)}, key=len, reverse=True))
    prefixes = read_list(lang, "org_prefixes.txt")
    suffix = _form_regex(spaced)
    prefix = _form_regex(prefixes)
    dem = _form_regex([w.replace("’", "'") for w in read_list(lang, "dem_words.txt")])
    cues = _form_regex(read_list(lang, "address_cues.txt"))
    codes = _form_regex(read_list(lang, "code_cues.txt") + _NUMBER_WORDS)
    return LabelCues(
        dem_words=re.compile(rf"(?:{dem})(?![\w'’-])", re.I),
        dem_frames=_frames(read_list(lang, "dem_frames.txt")),
        place_frames=_frames(read_list(lang, "place_frames.txt")),
        org_frames=_frames(read_list(lang, "org_frames.txt")),
        org_suffix_end=re.compile(rf"(?:^|(?<=[\s,]))(?:{suffix})\.?\Z"),
        org_suffix_after=re.compile(rf"[ \t]+(?:{suffix})(?:\.(?=\W|\Z))?(?![\w'’-])"),
        org_dense_suffixes=dense,
        org_prefix_start=re.compile(rf"(?:{prefix})\.?(?:[ \t]+|(?={_DENSE.pattern}))"),
        org_prefix_before=re.compile(rf"(?:^|(?<=\s))(?:{prefix})\.?[ \t]*[«\"“„']?\Z"),
        address_cue=re.compile(
            rf"(?<![\w-])(?<![Mm]ail )(?<!MAIL )(?<!IP )(?<![Ww]eb )(?<!MAC )(?<!URL )(?i:{cues})(?:[ \t]+(?:is|was))?"
            r"[ \t]*:?[ \t]*"
        ),
        code_cue_before=re.compile(rf"(?<![\w-])(?i:{codes})\.?[\s:#]*\Z"),
        titles=titles(lang),
        place_endings=read_list(lang, "place_endings.txt"),
    )


def is_date_shaped(text: str) -> bool:
    """A numeric date, day-month-year, month-day-year or year-month-day, with a valid day and month:
    ``23/06/1962``, ``10/20/85``, ``1960-07-28``; not ``36110/97`` nor ``12/345/2001``."""
    m = _NUMERIC_DATE.fullmatch(text.strip())
    if m is None:
        return False
    if m.group(1) is not None:
        a, b, year = int(m.group(1)), int(m.group(3)), m.group(4)
        valid_year = len(year) == 2 or 1800 <= int(year) <= 2099
        return valid_year and ((1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31))
    year4, month, day = int(m.group(5)), int(m.group(7)), int(m.group(8))
    return 1800 <= year4 <= 2099 and 1 <= month <= 12 and 1 <= day <= 31


def address_regions(text: str, lang: str = "en") -> list[tuple[int, int]]:
    """``(start, end)`` of the address lines of ``text``: after an address cue up to the end of its line
    or sentence, and the short lines under a titled name line at the top of a block (a letter's
    address block), up to the next empty line."""
    cues = label_cues(lang)
    out = []
    for m in cues.address_cue.finditer(text):
        start = m.end()
        stop = _ADDRESS_END.search(text, start, start + _MAX_ADDRESS)
        end = stop.start() if stop else min(len(text), start + _MAX_ADDRESS)
        if end > start:
            out.append((start, end))
    out += _letter_blocks(text, cues.titles)
    return sorted(out)


def _letter_blocks(text: str, title_words: frozenset[str]) -> list[tuple[int, int]]:
    """The lines under a line that is a titled name alone ("Mrs Nina Hagen"), after an empty line or
    the text's start, up to the next empty line: at most four lines of at most 14 words that are no
    sentences."""
    out = []
    lines, pos = [], 0
    for line in text.split("\n"):
        lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    for i, (a, b) in enumerate(lines):
        words = text[a:b].split()
        if not (1 < len(words) <= 5 and words[0].rstrip(".").lower() in title_words and words[0][:1].isupper()):
            continue
        if i > 0 and text[lines[i - 1][0] : lines[i - 1][1]].strip():
            continue
        block: list[tuple[int, int]] = []
        for c, d in lines[i + 1 : i + 5]:
            line = text[c:d]
            if not line.strip():
                break
            if len(line.split()) > 14 or re.search(r"[.!?:]\s+[A-Z][a-z]", line) or line.rstrip().endswith(":"):
                block = []
                break
            block.append((c, d))
        if block:
            out.append((block[0][0], block[-1][1]))
    return out


class _Index:
    """Intervals sorted by start, for the ones overlapping a range."""

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        self.spans = sorted(spans)
        self.starts = [s for s, _ in self.spans]
        self.longest = max((e - s for s, e in self.spans), default=0)

    def overlaps(self, start: int, end: int) -> bool:
        lo = bisect_left(self.starts, start - self.longest)
        hi = bisect_left(self.starts, end)
        return any(e > start for _, e in self.spans[lo:hi])


def settle_labels(
    text: str, chosen: Sequence[Candidate], candidates: Sequence[Candidate] = (), lang: str = "en"
) -> list[Candidate]:
    """The chosen candidates (non-overlapping), each with the label its evidence settles on (module
    docstring), sorted by offset; ``candidates``: all the candidates they were chosen from (the other
    detectors' readings). A candidate that grows takes only free characters and the names it holds
    whole ("Dean" and "Allen" of "Dean, Allen and Short"), which go; a run of foreign-script words
    joined by commas whose parts settle on different labels is cut at its commas ("주식회사 에코, 곽":
    a firm, then a person); a PERSON or a CODE settled as another label stays a direct identifier
    (:attr:`.combine.Candidate.direct`)."""
    if not chosen:
        return []
    evidence = _Evidence(text, candidates, lang)
    ordered = sorted(chosen, key=lambda c: (c.start, c.end))
    starts, ends = [c.start for c in ordered], [c.end for c in ordered]
    gone: set[int] = set()

    def others(i: int, start: int, end: int) -> list[int]:
        """The chosen candidates other than ``i`` that overlap ``[start, end)``."""
        return [j for j in range(bisect_right(ends, start), bisect_left(starts, end)) if j != i]

    out: list[tuple[int, Candidate]] = []
    for i, c in enumerate(ordered):
        if i in gone:
            continue
        if c.priority == PRIORITY_DENY:
            out.append((i, c))
            continue
        parts = _settle_parts(c, evidence)
        start, end = min(p.start for p in parts), max(p.end for p in parts)
        if (start, end) != (c.start, c.end):
            held = others(i, start, end)
            if all(
                ordered[j].label in _NAME_LABELS and start <= ordered[j].start and ordered[j].end <= end for j in held
            ):
                gone.update(held)
                out = [(j, o) for j, o in out if j not in gone]
            else:  # it may not grow there: the labels only
                parts = [replace(p, start=max(p.start, c.start), end=min(p.end, c.end)) for p in parts]
                parts = [c if (p.start, p.end, p.label) == (c.start, c.end, c.label) else p for p in parts]
        for part in parts:
            if part.label != c.label and c.label in _DIRECT and part.label not in _DIRECT:
                part = replace(part, direct=True)
            out.append((i, part))
    return sorted((o for _, o in out), key=lambda c: (c.start, c.end))


class _Evidence:
    """What :func:`settle_labels` reads besides a candidate: the text, the lists of its language, the
    other candidates by their characters (without the punctuation at their edges), the address lines."""

    def __init__(self, text: str, candidates: Sequence[Candidate], lang: str) -> None:
        self.text = text
        self.cues = label_cues(lang)
        self.by_span: dict[tuple[int, int], list[Candidate]] = {}
        for c in candidates:
            self.by_span.setdefault(_core(text, c.start, c.end), []).append(c)
        # the readings of the rule and identifier layers, for a NER's span that holds one
        self.rules = sorted((c for c in candidates if c.source.startswith(("rule:", "id:"))), key=lambda c: c.start)
        self.rule_starts = [c.start for c in self.rules]
        self.regions = _Index(address_regions(text, lang))

    def same(self, c: Candidate) -> list[Candidate]:
        return self.by_span.get(_core(self.text, c.start, c.end), [])

    def inside(self, c: Candidate) -> list[Candidate]:
        lo, hi = bisect_left(self.rule_starts, c.start), bisect_left(self.rule_starts, c.end)
        return [o for o in self.rules[lo:hi] if o.end <= c.end]


_EDGE = re.compile(r"[\w\u0080-\uffff]")


def _core(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without the ASCII punctuation and spaces at its edges ("1967-11-29)" of a phone
    finder is "1967-11-29")."""
    while start < end and not _EDGE.match(text[start]):
        start += 1
    while end > start and not _EDGE.match(text[end - 1]):
        end -= 1
    return start, end


#: Sources of runs of foreign-script words, which join words across commas (:mod:`.script_names`).
_SCRIPT_RUNS = ("name:foreign_script",)
#: Sources of the name layer whose PERSON is a name, not a word of a list: all but a cued place.
_NAME_LAYER = (
    "name:lexicon",
    "name:cued_name",
    "name:speaker",
    "name:inverted",
    "name:name_after_id",
    "propagated:name",
)
_COMMA = re.compile(r",[ \t]+")


def _settle_parts(c: Candidate, evidence: _Evidence) -> list[Candidate]:
    """``c`` settled, whole or, a run of foreign-script words across commas whose parts settle apart, in
    its parts."""
    text = evidence.text
    whole = _settle(text, c, evidence) or c
    if not c.source.startswith(_SCRIPT_RUNS) or not _COMMA.search(text, c.start, c.end):
        return [whole]
    edges, pos = [], c.start
    for m in _COMMA.finditer(text, c.start, c.end):
        edges.append((pos, m.start()))
        pos = m.end()
    edges.append((pos, c.end))
    parts = [replace(c, start=a, end=b) for a, b in edges if a < b]
    settled = [_settle(text, p, evidence) or p for p in parts]
    if len({p.label for p in settled}) == 1 or any(p.end > q.start for p, q in zip(settled, settled[1:], strict=False)):
        return [whole]  # one label, or a part that takes the next in (a firm's list of names): the run whole
    # the first part may take in a word before the run ("(주) "), the last one a word after it
    return [
        replace(p, start=p.start if k == 0 else parts[k].start, end=p.end if k == len(parts) - 1 else parts[k].end)
        for k, p in enumerate(settled)
    ]


def _settle(text: str, c: Candidate, evidence: _Evidence) -> Candidate | None:
    """The settled candidate, or None when ``c`` stays as it is."""
    cues, regions = evidence.cues, evidence.regions
    span = text[slice(*_core(text, c.start, c.end))]
    # 1. another detector of the same characters; a NER's span that is mostly a date or an age
    if c.source in SHAPE_SOURCES:
        for other in evidence.same(c):
            if other.label in (c.label, CUE) or other.source in SHAPE_SOURCES or other.source.startswith("ner:"):
                continue
            if other.label != "DATETIME" or not _code_cued(text, c, cues):
                return _relabel(c, other.label, "same_span")
    if c.source.startswith("ner:"):
        for other in evidence.inside(c):
            if other.label in _MEANINGS - {c.label} and other.length * 5 >= c.length * 3:
                return _relabel(c, other.label, "contains")
    # 2. shape
    if c.label == "CODE" and is_date_shaped(span) and not _code_cued(text, c, cues):
        return _relabel(c, "DATETIME", "date_shape")
    if c.label == "PERSON" and not _LETTER.search(span):
        return _relabel(c, "CODE", "no_letter")
    words = span.split()
    titled = "title" in c.source or bool(words and words[0].rstrip(".").lower() in cues.titles)
    # 3. firm words
    if c.label in _NAME_LABELS and not titled:
        firm = _firm(text, c, cues)
        if firm is not None:
            return firm
    if c.label != "LOC" and c.source.startswith(_SCRIPT_RUNS) and _place_ending(span, cues):
        return _relabel(c, "LOC", "place_ending")
    # 4. address lines
    if regions.overlaps(c.start, c.end):
        if c.label in ("PERSON", "MISC", "ORG") and not titled and "cued_name" not in c.source:
            return _relabel(c, "LOC", "address")
        if c.label == "CODE" and c.source in SHAPE_SOURCES and _POSTCODE.fullmatch(span):
            return _relabel(c, "LOC", "address")
    if c.label not in _NAME_LABELS:
        return None
    # 5. frames
    if c.label != "LOC" and _framed(text, c, cues.place_frames):
        return _relabel(c, "LOC", "place_frame")
    if _framed(text, c, cues.dem_frames):
        return _relabel(c, "DEM", "dem_frame")
    if c.label != "ORG" and not titled:
        org = _framed_firm(text, c, cues)
        if org is not None:
            return org
    if c.source.startswith("ner:") and c.label != "MISC" and not any(ch.isupper() for ch in span) and _kb_dem(span):
        return _relabel(c, "DEM", "kb_dem")
    # 6. DEM words: what a NER or a cued place read as a name (a name of the name layer stays one: "Christian")
    m = cues.dem_words.match(text, c.start) if not c.source.startswith(_NAME_LAYER) else None
    if m is not None and m.end() >= c.end:
        return _relabel(replace(c, end=m.end()), "DEM", "dem_word")
    return None


def _place_ending(span: str, cues: LabelCues) -> bool:
    """Whether a word of ``span`` ends with a place ending (``place_endings.txt``) after two characters
    or more ("양주시", "천안시 서북구")."""
    return any(w.endswith(e) and len(w) >= len(e) + 2 for w in span.split() for e in cues.place_endings)


def _kb_dem(span: str) -> bool:
    """Whether the knowledge base (:mod:`..gazetteer`, the one the gazetteer reads) knows ``span`` as a
    DEM only: an occupation, a condition ("lorry driver", "asthma"); False without a KB."""
    try:
        kb = load_shared_kb(default_kb_path())
    except FileNotFoundError:
        return False
    entries = kb.lookup(span)
    return bool(entries) and all(e.tab_type == "DEM" for e in entries)


def _code_cued(text: str, c: Candidate, cues: LabelCues) -> bool:
    """Whether a code cue ("no.", "file", "passport") is right before ``c``."""
    return cues.code_cue_before.search(text, max(0, c.start - 40), c.start) is not None


def _relabel(c: Candidate, label: str, rule: str) -> Candidate:
    tag = f"+label:{rule}"
    return replace(c, label=label, source=c.source if c.source.endswith(tag) else c.source + tag)


def _framed(text: str, c: Candidate, frames: tuple[Frame, ...]) -> bool:
    """Whether one of ``frames`` (:func:`_frames`) holds ``c``."""
    for before, after in frames:
        if before is not None and not before.search(text, max(0, c.start - 60), c.start):
            continue
        if after is not None and not after.match(text, c.end):
            continue
        return True
    return False


def _firm(text: str, c: Candidate, cues: LabelCues) -> Candidate | None:
    """``c`` as an ORG when a legal form or trade word ends or follows it, or starts or precedes it
    (one outside it is taken in)."""
    span = text[c.start : c.end]
    start, end = c.start, c.end
    ending = cues.org_suffix_end.search(span)
    found = (ending is not None and ending.start() > 0) or any(
        span.endswith(s) and len(span) > len(s) for s in cues.org_dense_suffixes
    )
    after = cues.org_suffix_after.match(text, c.end)
    if not found and after is not None:
        found, end = True, after.end()
    prefix = cues.org_prefix_start.match(span)
    found = found or (prefix is not None and prefix.end() < len(span))
    before = cues.org_prefix_before.search(text, max(0, c.start - 30), c.start)
    if before is not None:
        found, start = True, before.start()
    if not found:
        return None
    return _relabel(replace(c, start=start, end=end), "ORG", "firm_word")


def _framed_firm(text: str, c: Candidate, cues: LabelCues) -> Candidate | None:
    """``c`` as an ORG when an ORG frame holds it and it reads as a firm: an apposition ("*, solicitors")
    makes any name one; after an employer's cue ("works for *"), a list of names ("Dean, Allen and
    Short", taken in whole) or a single word that is no given name."""
    for before, after in cues.org_frames:
        if before is not None and not before.search(text, max(0, c.start - 60), c.start):
            continue
        if after is not None:
            if after.match(text, c.end):
                return _relabel(c, "ORG", "org_frame")
            continue
        listed = _FIRM_LIST.match(text, c.start)
        if listed is not None and listed.end() >= c.end:
            return _relabel(replace(c, end=listed.end()), "ORG", "org_frame")
        words = text[c.start : c.end].split()
        if len(words) == 1 and not is_first_name(words[0].strip(".,")):
            return _relabel(c, "ORG", "org_frame")
    return None
