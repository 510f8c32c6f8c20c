"""The values of personal keys in log lines and records: ``user=bob``,
``"email": "ada@example.org"``, ``first_name: 'Sven'``, ``owner=svc_42``,
``customer.name="Ada Lee"``, ``contact=<ada@example.org>``.

The keys and the label of their values are language data
(``data/log_keys.txt``); a key's words may be joined by ``_``, ``-``, ``.``,
a space or nothing, in any case (``first_name``, ``firstName``), behind a
dotted prefix (``user.email``; a person's key only behind another personal
key: ``customer.name``, not ``service.name``), and a key of a person followed
by ``id`` or ``no`` (``customer_id``) announces a CODE. A value is quoted
(``"..."``, ``'...'``, ``<...>``) or runs to the next space, comma or
bracket; a person's name written without quotes keeps its capitalised words
(``name=Ada Lee user=ada``). A person's value that does not read as a name
(``owner=svc_42``) is a CODE. Values that name no one (``null``, ``root``,
``-``: ``data/log_non_values.txt``) stay.

A key and its value are joined by ``=``; by ``:`` when the key is quoted
(JSON), starts its line or a field of it (after ``,``, ``;``, ``|``, ``{``),
or another pair stands right before or after it (``user: bob ip:
10.1.2.3``): a log line, not prose ("a note to the user: please restart").

A pure function over a string returning the values as
:class:`~.rules.RuleMatch` objects (``name`` "log_value") and the
``(start, end)`` of their keys, which name no one themselves. Pairs are tried
only where a word is followed by ``=`` or ``:``.
"""

import re
from collections.abc import Iterator
from functools import lru_cache

from ...word_lists import table_rows, word_set
from .cued_names import NOT_NAME_WORDS
from .names import LATIN_LETTERS
from .rules import RuleMatch

LOG_KEYS_FILE = "detect/privacy_ner/data/log_keys.txt"
#: Values of a personal key that name no one: ``data/log_non_values.txt``.
NON_VALUES = word_set("detect/privacy_ner/data/log_non_values.txt")
_PERSON, _CODE = "PERSON", "CODE"
#: A key of a person followed by one of these announces a code: ``customer_id``, ``patient_no``.
_ID_SUFFIX = r"(?P<id>[_.\- ]?(?:id|no|nr|number|num))?"


@lru_cache(maxsize=1)
def log_keys() -> dict[str, str]:
    """Key (its words joined by one space, lower case) -> the label of its values, read once."""
    return {key.lower(): label for key, label in table_rows(LOG_KEYS_FILE)}


def _key_words(key: str) -> str:
    return r"[_.\- ]?".join(re.escape(w) for w in key.split())


def normalize_key(key: str) -> str:
    """A key as the file writes it: ``firstName``, ``first-name``, ``FIRST_NAME`` -> ``first name``
    when that is a key, else its letters in lower case (``firstname``)."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])|[_.\- ]+", " ", key).lower().strip()
    keys = log_keys()
    return spaced if spaced in keys else spaced.replace(" ", "") if spaced.replace(" ", "") in keys else spaced


_L = LATIN_LETTERS
#: A value: quoted (an escaped quote inside), bracketed, or up to a space, a comma or a bracket.
_VALUE = (
    r"(?:\"(?P<dq>(?:[^\"\\\n]|\\.){0,200})\"|'(?P<sq>[^'\n]{0,200})'|<(?P<ab>[^<>\s]{1,200})>"
    r"|(?P<bare>[^\s,;&|\"'<>{}\[\]()=]{1,200}))"
)


@lru_cache(maxsize=1)
def _pair() -> re.Pattern[str]:
    keys = "|".join(_key_words(k) for k in sorted(log_keys(), key=len, reverse=True))
    return re.compile(
        r"(?<![\w.\-])(?P<q>[\"']?)(?P<key>(?:(?P<prefix>[A-Za-z_][\w\-]{0,30})\.){0,3}"
        rf"(?P<word>{keys}){_ID_SUFFIX})(?P=q)(?![\w\-])[ \t]{{0,3}}(?P<sep>=(?!=)|:(?![:/]))[ \t]{{0,3}}{_VALUE}",
        re.IGNORECASE,
    )


#: A word followed by ``=`` or ``:``, quoted or behind a dotted prefix: where a pair may begin.
_KEY_THEN_SEP = re.compile(r"(?<![\w.\-\"'])[\"']?[\w.\-]{1,120}[\"']?[ \t]{0,3}[=:]")


def _pairs(text: str) -> Iterator[re.Match[str]]:
    """The matches of :func:`_pair` in text order, not overlapping, tried only where a word is
    followed by ``=`` or ``:`` (in prose, seldom)."""
    pattern, end = _pair(), 0
    for hit in _KEY_THEN_SEP.finditer(text):
        m = pattern.match(text, hit.start()) if hit.start() >= end else None
        if m is not None:
            end = m.end()
            yield m


#: A pair right after a value: the separators, then a key and ``=`` or ``:``.
_NEXT_PAIR = re.compile(r"[ \t,;|]{1,3}[\"']?[A-Za-z_][\w.\-]{0,40}[\"']?[ \t]{0,3}(?:=|:(?![:/]))[ \t]{0,3}[^\s=:]")
#: A pair that ends right before a key (searched up to the key: ``\Z`` is there).
_PAIR_BEFORE = re.compile(
    r"(?<![\w.\-])[A-Za-z_][\w.\-]{0,40}[\"']?[ \t]{0,3}(?:=|:(?![:/]))[ \t]{0,3}[^\s=:]\S{0,80}[ \t,;|]{1,3}\Z"
)
#: More capitalised words of a person's name written without quotes (``name=Ada Lee``); not a next key.
_MORE_NAME = re.compile(rf"[ ](?P<word>[A-Z][{_L}'’\-]{{0,40}})(?![\w'’\-]|[ \t]*[=:])")
#: A person's name as a value: words of letters of any script ("Ada Lee", "김은서", "韩晶").
_NAME_VALUE = re.compile(r"[^\W\d_](?:[^\W\d_]|['’.\-])*(?:[ ][^\W\d_](?:[^\W\d_]|['’.\-])*){0,4}")
_PLACEHOLDER = re.compile(r"[*xX#.]{3,}|<[^<>]*>")


def _between_pairs(text: str, m: re.Match[str]) -> bool:
    """Another pair stands right after the pair ``m`` or right before it (``user: bob ip: 10.1.2.3``)."""
    if _NEXT_PAIR.match(text, m.end()):
        return True
    return _PAIR_BEFORE.search(text, max(0, m.start() - 130), m.start()) is not None


def _starts_field(text: str, pos: int) -> bool:
    """Only a bullet or spaces stand between ``pos`` and the start of its line or of a field."""
    i = pos
    while i > 0 and pos - i < 8 and text[i - 1] in " \t-*•>":
        i -= 1
    return i == 0 or text[i - 1] in "\n,;|{(["


def _is_field(text: str, m: re.Match[str]) -> bool:
    """``key: value`` is a field: a quoted key, a key that starts a field, a pair among pairs."""
    if m.group("sep") == "=" or m.group("q"):
        return True
    return _starts_field(text, m.start()) or _between_pairs(text, m)


def _value_span(text: str, m: re.Match[str], person: bool) -> tuple[int, int]:
    """The value's characters: inside its quotes; a bare value without trailing punctuation, with
    the capitalised words after it when it is a person's name."""
    group = next(g for g in ("dq", "sq", "ab", "bare") if m.group(g) is not None)
    start, end = m.span(group)
    if group != "bare":
        return start, end
    while end > start and text[end - 1] in ".,:;!?":
        end -= 1
    if person and text[start : start + 1].isupper():
        for _ in range(3):
            more = _MORE_NAME.match(text, end)
            if more is None:
                break
            end = more.end()
    return start, end


def _label(key: str, has_id_suffix: bool, value: str) -> str:
    label = log_keys().get(normalize_key(key), _CODE)
    if has_id_suffix and label == _PERSON:
        return _CODE
    if label == _PERSON and not _NAME_VALUE.fullmatch(value):
        return _CODE  # owner=svc_42, customer=C-1029, contact=ada@example.org
    return label


def find_log_fields(text: str) -> tuple[list[RuleMatch], list[tuple[int, int]]]:
    """The values of the personal keys of log lines and records, each with
    the label its key announces (``name`` "log_value"), and the ``(start,
    end)`` of those keys."""
    values: list[RuleMatch] = []
    keys: list[tuple[int, int]] = []
    if "=" not in text and ":" not in text:
        return values, keys
    for m in _pairs(text):
        if not _is_field(text, m):
            continue
        word, prefix = m.group("word"), m.group("prefix")
        person = log_keys().get(normalize_key(word)) == _PERSON and not m.group("id")
        if person and prefix and normalize_key(prefix) not in log_keys():
            continue  # service.name=nginx, host.name=web-1: the name of a thing, not of a person
        start, end = _value_span(text, m, person)
        value = text[start:end]
        if not value.strip() or value.lower() in NON_VALUES or _PLACEHOLDER.fullmatch(value):
            continue
        if person and value.split()[0].lower() in NOT_NAME_WORDS:
            continue  # "Contact: the Registry", "name: none"
        values.append(RuleMatch(start, end, _label(word, bool(m.group("id")), value), "log_value"))
        keys.append(m.span("key"))
    return values, keys
