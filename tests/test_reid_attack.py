"""The re-identification attack of issue 16 (benchmarks/reid/attack.py, benchmarks/reid_attack.py):
hand-made populations with every IDF and winner computed by hand; fast, no pipeline run.

Population ``PEOPLE`` (N = 4)::

    A: John Smith, Paris, 1970       df: john smith 1  -> idf log 4   = 1.386
    B: Mary Jones, Paris, 1970           mary jones 1  -> idf log 4
    C: Paris, Lyon, surgeon              surgeon    1  -> idf log 4
    D: Lyon, 1970                        paris 3, 1970 3 -> idf log 4/3 = 0.288
                                         lyon 2        -> idf log 2   = 0.693

``TIED`` (N = 6) is a tie that float sums get wrong: X has ulm (df 1) and vienna (df 4), Y has warsaw
and weimar (df 2 each); both score log 6 + log 6/4 = 2 log 3 = log 9, but the float sums of the logs
differ in the last bit.
"""

import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

attack_mod = pytest.importorskip("reid.attack")
script = pytest.importorskip("reid_attack")

PEOPLE = {
    "A": ["John Smith", "Paris", "1970"],
    "B": ["Mary  Jones", "PARIS", "1970"],
    "C": ["Paris", "Lyon", "surgeon"],
    "D": ["Lyon", "1970", "  "],
}
TIED = {
    "X": ["Ulm", "Vienna"],
    "Y": ["Warsaw", "Weimar"],
    "P3": ["Vienna", "Warsaw"],
    "P4": ["Vienna", "Weimar"],
    "P5": ["Vienna"],
    "P6": ["Zurich"],
}
LOG4, LOG43, LOG2 = math.log(4), math.log(4 / 3), math.log(2)


@pytest.fixture(scope="module")
def population():
    return attack_mod.build_population(PEOPLE)


def test_population_normalises_strings_and_counts_document_frequency(population):
    assert population.size == 4
    assert population.strings["B"] == {"mary jones", "paris", "1970"}
    assert population.strings["D"] == {"lyon", "1970"}  # the blank string is dropped
    assert population.df == {"john smith": 1, "mary jones": 1, "surgeon": 1, "paris": 3, "1970": 3, "lyon": 2}
    assert population.idf("john smith") == pytest.approx(LOG4)
    assert population.idf("paris") == pytest.approx(LOG43)
    assert population.idf("lyon") == pytest.approx(LOG2)


def test_visible_strings_match_case_folded_on_word_boundaries():
    strings = {"john smith", "paris", "1970", "j. doe", "lyon"}
    text = "Mr JOHN\n  Smith (J. Doe) left Parisian Lyons in 19701 and parisx; not paris-based? PARIS."
    assert attack_mod.visible_strings(text, strings) == {"john smith", "j. doe", "paris"}
    assert attack_mod.visible_strings("Johnny Smithson", {"john smith"}) == set()
    assert attack_mod.visible_strings("xj. doe", {"j. doe"}) == set()


def test_a_tie_at_the_top_is_a_failure(population):
    # visible: 1970, paris -> A = B = 2 log 4/3 = 0.575 > C = D = log 4/3
    outcome = attack_mod.attack(population, "[PERSON 1] was born in 1970 in Paris.", "A")
    assert not outcome.success
    assert (outcome.rank, outcome.n_tied, outcome.best) == (1, 2, ("A", "B"))
    assert outcome.p_top1_random == 0.5
    assert outcome.score_true == pytest.approx(2 * LOG43)
    assert (outcome.n_visible_true, outcome.n_known_true) == (2, 3)


def test_the_true_person_strictly_first_is_a_success(population):
    # visible: john smith, paris -> A = log 4 + log 4/3 = 1.674; B = C = log 4/3; D = 0
    outcome = attack_mod.attack(population, "Mr John  Smith moved to [LOC 1], then to PARIS.", "A")
    assert outcome.success
    assert (outcome.rank, outcome.n_tied, outcome.best) == (1, 1, ("A",))
    assert outcome.score_true == pytest.approx(LOG4 + LOG43)
    assert outcome.p_top1_random == 1.0


def test_another_person_first_is_a_failure_with_the_true_rank(population):
    # visible: surgeon, lyon, 1970 -> C = log 4 + log 2 = 2.079; D = log 2 + log 4/3 = 0.981;
    # A = B = log 4/3 = 0.288
    text = "The surgeon left Lyon in 1970."
    winner = attack_mod.attack(population, text, "C")
    assert winner.success and winner.score_true == pytest.approx(LOG4 + LOG2)
    loser = attack_mod.attack(population, text, "D")
    assert not loser.success
    assert (loser.rank, loser.n_tied, loser.best, loser.p_top1_random) == (2, 1, ("C",), 0.0)
    assert loser.score_true == pytest.approx(LOG2 + LOG43)
    assert loser.score_best == pytest.approx(LOG4 + LOG2)
    third = attack_mod.attack(population, text, "A")
    assert (third.rank, third.n_tied) == (3, 2)


def test_nothing_visible_ties_everyone(population):
    outcome = attack_mod.attack(population, "[PERSON 1] was born in [DATE 1].", "B")
    assert not outcome.success
    assert (outcome.rank, outcome.n_tied, outcome.score_true) == (1, 4, 0.0)
    assert outcome.p_top1_random == 0.25


def test_scores_tie_exactly_where_float_sums_differ():
    tied = attack_mod.build_population(TIED)
    assert math.fsum([tied.idf("ulm"), tied.idf("vienna")]) != math.fsum([tied.idf("warsaw"), tied.idf("weimar")])
    outcome = attack_mod.attack(tied, "Born in Ulm, moved to Vienna, Warsaw and Weimar.", "X")
    assert not outcome.success
    assert (outcome.rank, outcome.n_tied, outcome.best) == (1, 2, ("X", "Y"))
    assert outcome.score_true == pytest.approx(math.log(9))


def test_unknown_person_is_an_error(population):
    with pytest.raises(KeyError):
        attack_mod.attack(population, "text", "E")


def test_chars_kept_counts_overlapping_spans_once():
    # length 20; masked [0,5) [3,8) [10,12) [18,25) -> merged [0,8) [10,12) [18,20): 12 masked, 8 kept
    masked = [[10, 12], [0, 5], [3, 8], [18, 25]]
    assert attack_mod.merge_spans(masked, 20) == [(0, 8), (10, 12), (18, 20)]
    assert attack_mod.chars_kept(masked, 20) == 8
    assert attack_mod.chars_kept([], 20) == 20
    assert attack_mod.chars_kept([[0, 20]], 20) == 0


def test_mask_text_replaces_merged_spans():
    text = "John Smith lives in Paris."
    assert attack_mod.mask_text(text, [[5, 10], [0, 4], [20, 25]], "#") == "# # lives in #."
    assert attack_mod.mask_text(text, [[0, 7], [5, 10]], "#") == "# lives in Paris."


def test_people_and_gold_masking_from_tab():
    from spacy_textsan.tab import parse_tab

    def mention(start, end, text, kind, entity):
        return {
            "entity_type": "MISC",
            "start_offset": start,
            "end_offset": end,
            "span_text": text,
            "identifier_type": kind,
            "entity_id": entity,
        }

    text = "John Smith lives in Paris with a cat."
    docs = parse_tab(
        [
            {
                "doc_id": "d1",
                "text": text,
                "annotations": {
                    "annotator1": {
                        "entity_mentions": [
                            mention(0, 10, "John Smith", "DIRECT", "e1"),
                            mention(20, 25, "Paris", "QUASI", "e2"),
                            mention(33, 36, "cat", "NO_MASK", "e3"),
                        ]
                    },
                    "annotator2": {"entity_mentions": [mention(5, 10, "Smith", "DIRECT", "f1")]},
                },
            }
        ]
    )
    assert attack_mod.people_from_tab(docs) == {"d1": ["John Smith", "Paris", "Smith"]}
    assert attack_mod.gold_masking(docs[0]) == [[0, 10], [20, 25]]
    assert attack_mod.gold_masking(docs[0], annotator="annotator2") == [[5, 10]]
    with pytest.raises(ValueError):
        attack_mod.people_from_tab(docs + docs)


def test_variant_and_sweep_specs():
    assert script.parse_variant("new=a.cfg;components.kanon_risk.k=10;paths.kanon_index={kanon_index};x=null") == (
        "new",
        "a.cfg",
        {"components.kanon_risk.k": 10, "paths.kanon_index": "{kanon_index}", "x": None},
    )
    assert script.parse_variant("mask_all") == ("mask_all", "spacy_textsan/configs/mask_all.cfg", {})
    assert script.parse_sweep("k=5,10") == ("components.kanon_risk.k", [5, 10])
    assert script.parse_sweep("components.lm_risk.threshold=-10.5,-12") == (
        "components.lm_risk.threshold",
        [-10.5, -12],
    )
    with pytest.raises(SystemExit):
        script.parse_variant("unknown")


def test_sweeps_apply_to_configs_that_have_the_key():
    import spacy

    own_k = spacy.util.load_config(ROOT / "spacy_textsan" / "configs" / "risk.cfg")["components"]["kanon_risk"]["k"]
    assert own_k not in (5, 10)
    variants = [script.parse_variant("mask_all"), script.parse_variant("risk.cfg")]
    points = script.plan_points(variants, [script.parse_sweep("k=5,10")], "/idx")
    assert [(p["variant"], p["sweep"], p["configured"]) for p in points] == [
        ("mask_all", {}, True),
        ("risk.cfg", {"components.kanon_risk.k": 5}, False),
        ("risk.cfg", {"components.kanon_risk.k": 10}, False),
        ("risk.cfg", {"components.kanon_risk.k": own_k}, True),  # the point as configured
    ]
    assert points[1]["overrides"] == {"paths.kanon_index": "/idx", "components.kanon_risk.k": 5}
    assert script.point_label(points[1]) == "risk.cfg k=5"


def test_compare_finds_points_that_dominate_the_baseline():
    def row(variant, kept, reid, label=None):
        return {
            "variant": variant,
            "label": label or variant,
            "reference": False,
            "configured": True,
            "chars_kept": kept,
            "reid": reid,
        }

    rows = [
        row("mask_all", 0.80, 0.20),
        row("new", 0.70, 0.10, "new k=5"),
        row("new", 0.90, 0.30, "new k=10"),
        row("new", 0.85, 0.20, "new k=20"),
    ]
    result = script.compare(rows, "mask_all")["new"]
    assert result["points_dominating_baseline"] == ["new k=20"]
    # between (0.70, 0.10) and (0.85, 0.20): 0.10 + (0.10 / 0.15) * 0.10
    assert result["reid_at_baseline_chars_kept"] == pytest.approx(0.10 + 0.1 / 0.15 * 0.10)
