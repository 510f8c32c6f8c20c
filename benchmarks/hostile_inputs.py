"""Hostile inputs: no detector regex may be quadratic in the text.

    python benchmarks/hostile_inputs.py                 # both parts, writes the JSON
    python benchmarks/hostile_inputs.py --patterns-only # the per-pattern check, printed
    python benchmarks/hostile_inputs.py --pipeline-only --lengths 20000

Two parts:

* **patterns**: every compiled pattern of ``spacy_textsan.detect.privacy_ner`` and
  ``spacy_textsan.detect.gazetteer.patterns`` (module-level ``re.Pattern`` objects,
  lists of pattern dicts, lists/tuples of compiled patterns, the patterns that
  cached functions and :class:`InstitutionFinder` build) and every finder
  function of them, on long runs of each hostile shape (:data:`SHAPES`: capitals,
  ``O'``, ``A-``, ``1/``, ``x at ``, IBAN-like groups, CJK, combining marks...),
  each at ``n`` and ``4n`` characters, bare and followed by a tail that breaks a
  match at the very end. A linear pattern takes about 4 times as long at ``4n``;
  a ratio over :data:`MAX_RATIO` (and above a noise floor, confirmed from ``4n``
  to ``16n``) is reported as non-linear. Reported, not asserted: the unit tests
  check the bounded forms by their matches (tests/test_linear_patterns.py), never
  by time.
* **pipeline**: the whole default pipeline (``load_pipeline(None)`` then
  ``sanitize_texts``) on each shape at 20,000 and 200,000 characters: seconds per
  document, and apart from it the seconds of privacy_ner's own detectors, of the
  tokenizer and of privacy_ner's source NER. The pipeline runs in a worker
  process that is killed after ``--limit-s`` seconds (120) on one document: what
  spaCy's tokenizer or a C-level loop does cannot be interrupted otherwise.

Output: benchmarks/results/hostile_inputs.json.
"""

import argparse
import datetime
import gc
import importlib
import inspect
import json
import math
import multiprocessing
import os
import pkgutil
import platform
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent

#: Units repeated into long runs: each is a shape some detector accepts over and over.
SHAPES: dict[str, str] = {
    "caps": "A",
    "lower": "a",
    "digits": "1",
    "caps_digits": "A1",
    "O_apostrophe": "O'",
    "A_hyphen": "A-",
    "a_hyphen": "a-",
    "1_hyphen": "1-",
    "1_slash": "1/",
    "1_dot": "1.",
    "1_colon": "1:",
    "1_comma": "1,",
    "a.b-c_d": "a.b-c_d",
    "a_at": "a@",
    "at_a": "@a",
    "dots": ".",
    "hyphens": "-",
    "underscores": "_",
    "plus1_space": "+1 ",
    "1_space": "1 ",
    "12_space": "12 ",
    "A_space": "A ",
    "A_dot_space": "A. ",
    "A_dot": "A.",
    "AB_space": "AB ",
    "J_o_space": "J o ",
    "a_space": "a ",
    "Aa_space": "Aa ",
    "Word_space": "Word ",
    "WORD_space": "WORD ",
    "Aa_comma": "Aa, ",
    "Aa_newline": "Aa\n",
    "Aa_hyphen": "Aa-",
    "mixed_scripts": "aИ",
    "greek_latin": "Aα",
    "cyrillic_word": "Иван ",
    "combining": "e\u0301",
    "cjk": "中",
    "cjk_latin": "中a",
    "hangul": "한",
    "arabic": "ع",
    "arabic_words": "عل ",
    "spaces": " ",
    "tabs": "\t",
    "newlines": "\n",
    "nbsp": "\u00a0",
    "zero_width": "\u200b",
    "zero_width_letters": "a\u200b",
    "soft_hyphen": "A\u00ad",
    "fullwidth": "Ａ",
    "x_at": "x at ",
    "x_paren_at": "x (at) ",
    "lena_dot": "lena dot ",
    "DE89": "DE89 ",
    "http": "http://a",
    "www": "www.a",
    "a_dot": "a.",
    "ab_dot_com": "ab.com ",
    "iban": "DE89 3704 0044 0532 0130 00 ",
    "long_number": "1 234 567 ",
    "number_dash": "12-34-",
    "number_dot": "12.34.",
    "amount": "1,000 ",
    "phone": "+49 40 822119 ",
    "id_cue": "ID A ",
    "no_cue": "no 1 ",
    "user_cue": "user ",
    "password_cue": "password: ",
    "Mr_A": "Mr A ",
    "Dear_A": "Dear A ",
    "from_A": "from A ",
    "in_Aa": "in Aa ",
    "street": "14 A ",
    "rue": "rue A ",
    "strasse": "Aastraße ",
    "postcode": "1000 A ",
    "caps_words_apostrophe": "AB'C ",
    "A_and": "A and ",
    "date": "1 May ",
    "year": "1990 ",
    "percent": "1 % ",
    "age": "aged 1 ",
    "married": "married ",
    "father_of": "father of ",
    "hex": "ab:",
    "hex4": "abcd:",
    "tld": "a.co",
    "Aa_apostrophe": "Aa'",
    "semicolon_cells": "A;",
    "pipe_cells": "Aa|",
    "colon_field": "Name: A\n",
    "Prison": "A Prison ",
    "of_the": "University of A ",
    "HMP": "HMP A ",
    "itis": "arthritis ",
    "parens": "(",
    "brackets": "[a] ",
    "123_space": "123 ",
    "123_comma": "123,",
    "one_space": "one ",
    "id_digits": "ID 1 ",
    # runs of a few dozen characters that fail at their end, repeated: a pattern that tries every way of
    # splitting such a run is exponential in its length and only linear in the number of runs
    "digits40_x": "1" * 40 + "x ",
    "cjk30_x": "中" * 30 + "x ",
    "caps60_digit": "A" * 60 + "1 ",
    "hyphens40_x": "A-" * 40 + "x ",
    "O_apostrophe40": "O'" * 40 + "- ",
    "record_long_cell": "A" * 300 + "1;B;C\n",
    "rue_hyphens": "rue " + "A-" * 60 + "x ",
    "caps1000_confusable": "A" * 1000 + "\u0430 ",
    "spelt_caps1000": "A " * 1000 + "\n",
    "email_like": "a" * 70 + "@" + "b" * 70 + " ",
    "user_tabs": "user" + "\t" * 50 + "\n",
}
#: What follows a run in the "tail" variant: characters that make a match that
#: reached the end of the run fail there (a word character, an "@", a digit).
TAIL = "x9_@é"
#: The ratio of the seconds at 4n to the seconds at n above which a target is non-linear.
MAX_RATIO = 6.0
#: Seconds at 4n under which a ratio is noise.
NOISE_FLOOR_S = 0.004


def hostile_text(unit: str, n: int, tail: str = "") -> str:
    """``unit`` repeated to ``n`` characters (the tail counted in)."""
    body = (unit * (n // len(unit) + 1))[: max(0, n - len(tail))]
    return body + tail


# --------------------------------------------------------------------------- #
# the targets: every compiled pattern and every finder function
# --------------------------------------------------------------------------- #


def _modules() -> list:
    import spacy_textsan.detect.privacy_ner as pkg

    names = [f"{pkg.__name__}.{m.name}" for m in pkgutil.iter_modules(pkg.__path__) if m.name not in ("source_child",)]
    # the defining modules first, so that a pattern is named after them and not after a module that imports it
    names.sort(key=lambda n: (not n.endswith((".rules", ".names")), n))
    return [importlib.import_module(n) for n in names] + [importlib.import_module("spacy_textsan.detect.gazetteer.patterns")]


def _short(module_name: str) -> str:
    return module_name.replace("spacy_textsan.", "")


def _add(out: dict[str, re.Pattern], label: str, rx: re.Pattern) -> None:
    """Each pattern once (the copies that other modules import or compile again are skipped)."""
    if all((rx.pattern, rx.flags) != (o.pattern, o.flags) for o in out.values()):
        out[label] = rx


def _patterns_in(value, label: str, out: dict[str, re.Pattern]) -> None:
    """The compiled patterns in ``value``: a pattern, a list/tuple of patterns
    or of tuples holding one (compiled pattern lists), a list of pattern dicts."""
    if isinstance(value, re.Pattern):
        _add(out, label, value)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            if isinstance(item, re.Pattern):
                _add(out, f"{label}[{i}]", item)
            elif isinstance(item, tuple) and any(isinstance(x, re.Pattern) for x in item):
                name = next((x for x in item if isinstance(x, str)), str(i))
                _add(out, f"{label}[{i}:{name}]", next(x for x in item if isinstance(x, re.Pattern)))
            elif isinstance(item, dict) and isinstance(item.get("pattern"), str):
                flags = re.IGNORECASE if "i" in item.get("flags", "") else 0
                try:
                    rx = re.compile(item["pattern"], flags)
                except re.error:
                    continue
                _add(out, f"{label}[{i}:{item.get('name', i)}]", rx)


def compiled_patterns() -> dict[str, re.Pattern]:
    """Every compiled pattern of the detector modules, by a readable name."""
    from spacy_textsan.word_lists import read_list
    from spacy_textsan.detect.gazetteer.patterns import INSTITUTIONS_PATH, InstitutionFinder

    out: dict[str, re.Pattern] = {}
    for module in _modules():
        mod = _short(module.__name__)
        for attr, value in sorted(vars(module).items()):
            if attr.startswith("__"):
                continue
            _patterns_in(value, f"{mod}.{attr}", out)
            # the patterns that cached functions without parameters build (address_patterns, _script_regexes)
            if callable(value) and hasattr(value, "cache_info") and getattr(value, "__module__", "") == module.__name__:
                try:
                    if inspect.signature(value).parameters:
                        continue
                except (TypeError, ValueError):
                    continue
                if attr in ("name_lexicon", "place_names"):
                    continue
                _patterns_in(value(), f"{mod}.{attr}()", out)
    finder = InstitutionFinder(read_list(INSTITUTIONS_PATH))
    _patterns_in(finder._patterns, "detect.gazetteer.patterns.InstitutionFinder._patterns", out)
    return out


def finder_functions() -> dict[str, Callable[[str], object]]:
    """Every finder function of the detector modules, as a function of the text."""
    from spacy_textsan.word_lists import read_list
    from spacy_textsan.detect.gazetteer.patterns import (
        INSTITUTIONS_PATH,
        InstitutionFinder,
        body_parts,
        condition_words,
        extend_condition,
    )
    from spacy_textsan.detect.privacy_ner import (
        addresses,
        adjacent_names,
        cued_names,
        host_rules,
        identifiers,
        name_mentions,
        names,
        network,
        normalize,
        phones,
        places,
        propagation,
        rules,
        script_names,
        standard_numbers,
        tables,
    )
    from spacy_textsan.detect.privacy_ner.combine import PRIORITY_DEFAULT, Candidate, claim_names
    from spacy_textsan.detect.privacy_ner.entity_ids import assign_entity_ids
    from spacy_textsan.detect.privacy_ner.privacy_ner import PrivacyNER

    default = rules.compile_patterns(rules.DEFAULT_PATTERNS)
    allow = rules.compile_allow_patterns(rules.DEFAULT_ALLOW_PATTERNS)
    institutions = InstitutionFinder(read_list(INSTITUTIONS_PATH))
    parts = body_parts()

    def persons(text: str) -> list:
        """A PERSON candidate at the start, one in the middle and one at the end."""
        n = len(text)
        spans = [(0, min(n, 9)), (n // 2, min(n, n // 2 + 9)), (max(0, n - 9), n)]
        return [Candidate(s, e, "PERSON", "test", PRIORITY_DEFAULT) for s, e in spans if e > s]

    def words(text: str) -> list[str]:
        return text.split()

    # what PrivacyNER._map_ent reads of itself: a source entity over the whole text is cut into its fields
    detector = SimpleNamespace(label_map={"PERSON": "PERSON"}, min_code_digits=4)

    return {
        "rules.find_rule_matches": lambda t: rules.find_rule_matches(t, default),
        "rules.is_allowed(whole text)": lambda t: rules.is_allowed(t, allow),
        "rules.find_titled_names(tokens)": lambda t: rules.find_titled_names(words(t)),
        "identifiers.find_identifiers": identifiers.find_identifiers,
        "network.find_network_ids": network.find_network_ids,
        "addresses.find_addresses": addresses.find_addresses,
        "standard_numbers.find_standard_numbers": standard_numbers.find_standard_numbers,
        "standard_numbers.find_cued_codes": standard_numbers.find_cued_codes,
        "standard_numbers.find_mixed_codes": standard_numbers.find_mixed_codes,
        "standard_numbers.find_long_numbers": standard_numbers.find_long_numbers,
        "tables.find_table_cells": tables.find_table_cells,
        "phones.find_phones": phones.find_phones,
        "host_rules.find_rule_layer": host_rules.find_rule_layer,
        "names.find_lexicon_names": names.find_lexicon_names,
        "script_names.find_script_names": lambda t: script_names.find_script_names(t, max_foreign_share=1.0),
        "script_names.find_mixed_script_tokens": script_names.find_mixed_script_tokens,
        "cued_names.find_cued_names": cued_names.find_cued_names,
        "places.find_cued_places": places.find_cued_places,
        "name_mentions.find_name_mentions": lambda t: name_mentions.find_name_mentions(
            t, [(c.start, c.end) for c in persons(t)]
        ),
        "adjacent_names.extend_person_names": lambda t: adjacent_names.extend_person_names(t, persons(t)),
        "propagation.propagate_mentions": lambda t: propagation.propagate_mentions(t, persons(t)),
        "propagation.relabel_name_mentions": lambda t: propagation.relabel_name_mentions(t, persons(t), persons(t)),
        "privacy_ner.PrivacyNER._map_ent(whole text)": lambda t: PrivacyNER._map_ent(
            detector, t, 0, len(t), "PERSON", "source"
        ),
        "combine.claim_names": lambda t: claim_names(t, persons(t)),
        "entity_ids.assign_entity_ids(words)": lambda t: assign_entity_ids([(w, "PERSON") for w in words(t)[:2000]]),
        "normalize.normalize": normalize.normalize,
        "normalize.caps_runs": normalize.caps_runs,
        "normalize.restore_case": normalize.restore_case,
        "gazetteer.InstitutionFinder.__call__": institutions,
        "gazetteer.condition_words": lambda t: condition_words(words(t)),
        "gazetteer.extend_condition": lambda t: extend_condition(words(t), 0, 1, parts),
    }


# --------------------------------------------------------------------------- #
# timing
# --------------------------------------------------------------------------- #


def _seconds(fn: Callable[[str], object], text: str, budget: float = 0.05) -> float:
    """The best of a few runs (one when a run takes long), the garbage collector off."""
    best = math.inf
    spent = 0.0
    gc.disable()
    try:
        for _ in range(5):
            t0 = time.perf_counter()
            fn(text)
            dt = time.perf_counter() - t0
            best = min(best, dt)
            spent += dt
            if spent > budget:
                break
    finally:
        gc.enable()
    return best


#: What each target reads once before it is timed: what it loads on its first call (the place names
#: of the KB, the name lexicon, a compiled pattern) is no part of its time.
WARM_UP = "Peder Halvorsen from Oslo, born 3 May 1961, 14 Baker Street, +47 22 33 44 55, ID 12345678."


def _finditer(rx: re.Pattern) -> Callable[[str], int]:
    return lambda t: sum(1 for _ in rx.finditer(t))


def check_linearity(
    targets: dict[str, Callable[[str], object]],
    shapes: dict[str, str],
    n: int,
    factor: int = 4,
    give_up_s: float = 1.0,
) -> list[dict]:
    """For every target and shape (bare, and with :data:`TAIL`): the seconds at
    ``n`` and ``factor * n`` characters and their ratio; ``linear`` is False
    when the ratio exceeds :data:`MAX_RATIO` above :data:`NOISE_FLOOR_S` (or the
    time at ``n`` alone exceeds ``give_up_s``)."""
    rows = []
    for name, fn in targets.items():
        fn(WARM_UP)
        for shape, unit in shapes.items():
            for tail in ("", TAIL):
                # a target that takes long on a tenth of the text is given up before it takes minutes
                tiny = _seconds(fn, hostile_text(unit, n // 10, tail), budget=0.1)
                small = _seconds(fn, hostile_text(unit, n, tail)) if tiny < give_up_s / 20 else math.inf
                if small > give_up_s:
                    large, ratio, linear = None, None, False
                else:
                    large = _seconds(fn, hostile_text(unit, factor * n, tail))
                    ratio = large / small if small > 0 else math.inf
                    linear = ratio <= MAX_RATIO or large < NOISE_FLOOR_S
                    if not linear and large <= give_up_s:
                        # a second look, from 4n to 16n: what the caches do to one ratio they rarely do to two
                        larger = _seconds(fn, hostile_text(unit, factor * factor * n, tail))
                        linear = larger / large <= MAX_RATIO
                if not linear:
                    print(
                        f"NON-LINEAR {name} on {shape}{'+tail' if tail else ''}: {small:.4f}s at {n}, "
                        f"{large if large is None else round(large, 4)}s at {factor * n}",
                        flush=True,
                    )
                rows.append(
                    {
                        "target": name,
                        "shape": shape + ("+tail" if tail else ""),
                        "seconds_n": round(small, 6) if small < math.inf else None,
                        "seconds_4n": None if large is None else round(large, 6),
                        "ratio": None if ratio is None else round(ratio, 2),
                        "linear": linear,
                    }
                )
    return rows


def _pipeline_worker(conn) -> None:
    """A process holding the default pipeline: for each ``(unit, n)`` it is sent,
    it times privacy_ner's own detectors, the tokenizer, the source NER and the
    whole pipeline on the hostile text, sending each time as soon as it has it."""
    from spacy_textsan.pipeline import load_pipeline
    from spacy_textsan.detect.privacy_ner import PrivacyNER
    from spacy_textsan.detect.privacy_ner.normalize import caps_runs, normalize
    from spacy_textsan.detect.privacy_ner.sources import source_entities
    from spacy_textsan.run.runner import sanitize_texts

    nlp = load_pipeline(None)
    list(sanitize_texts(nlp, [WARM_UP]))
    detector = next(p for _, p in nlp.pipeline if isinstance(p, PrivacyNER))
    pipelines = [nlp, *detector._sources.values()]

    def flush() -> None:
        # a tokenizer keeps the tokens of the strings it has read: each part reads the text afresh
        for p in pipelines:
            p.tokenizer.url_match = p.tokenizer.url_match

    conn.send(("ready", None))
    while True:
        job = conn.recv()
        if job is None:
            return
        unit, n = job
        text = hostile_text(unit, n)
        t0 = time.perf_counter()
        norm = normalize(text)
        caps_runs(norm.text)
        detector.rule_candidates(norm.text)
        conn.send(("rules_seconds", time.perf_counter() - t0))
        flush()
        t0 = time.perf_counter()
        nlp.make_doc(text)
        conn.send(("tokenizer_seconds", time.perf_counter() - t0))
        flush()
        t0 = time.perf_counter()
        for source in detector._sources.values():
            source_entities(source, [norm.text], batch_size=1)
        conn.send(("ner_seconds", time.perf_counter() - t0))
        flush()
        t0 = time.perf_counter()
        (result,) = list(sanitize_texts(nlp, [text]))
        conn.send(("seconds", time.perf_counter() - t0))
        conn.send(("status", result.status))


#: The parts of one measurement, in the order the worker times them.
_STEPS = ("rules_seconds", "tokenizer_seconds", "ner_seconds", "seconds", "status")


class _Worker:
    """:func:`_pipeline_worker` in a process of its own, killed and started
    again when a measurement runs past its time limit (a C-level loop, a
    regular expression or spaCy's tokenizer, cannot be interrupted otherwise)."""

    def __init__(self) -> None:
        self.process = None
        self.conn = None

    def start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_pipeline_worker, args=(child,), daemon=True)
        self.process.start()
        assert self.conn.recv()[0] == "ready"

    def measure(self, unit: str, n: int, limit_s: float) -> dict:
        """The parts timed within ``limit_s`` seconds; the others are None and
        ``timed_out`` names the first of them."""
        if self.process is None:
            self.start()
        assert self.conn is not None and self.process is not None
        self.conn.send((unit, n))
        out: dict = {step: None for step in _STEPS}
        deadline = time.monotonic() + limit_s
        for step in _STEPS:
            if not self.conn.poll(max(0.0, deadline - time.monotonic())):
                out["timed_out"] = step
                self.process.kill()
                self.process.join()
                self.process = None
                return out
            name, value = self.conn.recv()
            out[name] = round(value, 3) if isinstance(value, float) else value
        return out

    def close(self) -> None:
        if self.process is not None and self.conn is not None:
            self.conn.send(None)
            self.process.join(timeout=30)


def pipeline_timings(shapes: dict[str, str], lengths: list[int], limit_s: float = 120.0) -> list[dict]:
    """Seconds of the whole default pipeline on one document of each shape and
    length (``seconds_<n>``), and of three parts of it timed apart: privacy_ner's
    own detectors (``rules_seconds_<n>``: the detection copy, the ALL-CAPS runs,
    :meth:`PrivacyNER.rule_candidates`), the pipeline's tokenizer
    (``tokenizer_seconds_<n>``) and privacy_ner's source NER (``ner_seconds_<n>``).
    A measurement stops after ``limit_s`` seconds (``timed_out_<n>``: the part
    it was in); a length is skipped after a shorter one timed out."""
    worker = _Worker()
    rows = []
    try:
        for shape, unit in shapes.items():
            row: dict = {"shape": shape, "unit": unit}
            skip = False
            for n in lengths:
                if skip:
                    row[f"skipped_{n}"] = "a shorter text timed out"
                    continue
                for key, value in worker.measure(unit, n, limit_s).items():
                    row[f"{key}_{n}"] = value
                skip = f"timed_out_{n}" in row
            rows.append(row)
            print(shape.ljust(24), "  ".join(_describe(row, n) for n in lengths), flush=True)
    finally:
        worker.close()
    return rows


def _describe(row: dict, n: int) -> str:
    if f"skipped_{n}" in row:
        return f"{n}: skipped"

    def sec(key: str) -> str:
        value = row.get(f"{key}_{n}")
        return f"{value:.3f}s" if value is not None else "-"

    timed_out = f" TIMED OUT in {row[f'timed_out_{n}']}" if f"timed_out_{n}" in row else ""
    return (
        f"{n}: {sec('seconds')} {row.get(f'status_{n}') or ''}{timed_out} (rules {sec('rules_seconds')}, "
        f"tokenizer {sec('tokenizer_seconds')}, NER {sec('ner_seconds')})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--patterns-only", action="store_true")
    ap.add_argument("--pipeline-only", action="store_true")
    ap.add_argument("--n", type=int, default=2500, help="characters of the smaller input of the pattern check")
    ap.add_argument("--lengths", type=int, nargs="+", default=[20_000, 200_000])
    ap.add_argument("--limit-s", type=float, default=120.0, help="time limit of one document's measurement")
    ap.add_argument("--shapes", nargs="*", help="only these shapes (names of SHAPES)")
    ap.add_argument("--targets", help="only the targets whose name contains this")
    ap.add_argument("--out", default=str(HERE / "results" / "hostile_inputs.json"))
    args = ap.parse_args()
    shapes = {k: v for k, v in SHAPES.items() if not args.shapes or k in args.shapes}
    result: dict = {
        "date": datetime.date.today().isoformat(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "shapes": shapes,
    }
    if not args.pipeline_only:
        targets: dict[str, Callable[[str], object]] = {
            f"pattern {k}": _finditer(v) for k, v in compiled_patterns().items()
        }
        targets.update({f"finder {k}": v for k, v in finder_functions().items()})
        if args.targets:
            targets = {k: v for k, v in targets.items() if args.targets in k}
        t0 = time.perf_counter()
        rows = check_linearity(targets, shapes, args.n)
        bad = [r for r in rows if not r["linear"]]
        worst = sorted(
            (r for r in rows if r["ratio"] is not None and r["seconds_4n"] >= NOISE_FLOOR_S), key=lambda r: -r["ratio"]
        )[:15]
        print(
            f"{len(targets)} targets x {2 * len(shapes)} inputs in {time.perf_counter() - t0:.0f}s: "
            f"{len(bad)} non-linear"
        )
        slowest = sorted(rows, key=lambda r: -(math.inf if r["seconds_4n"] is None else r["seconds_4n"]))[:15]
        for r in slowest:
            print(f"slowest: {r['target']} on {r['shape']}: {r['seconds_n']}s, {r['seconds_4n']}s (x{r['ratio']})")
        result["patterns"] = {
            "n": args.n,
            "factor": 4,
            "max_ratio": MAX_RATIO,
            "noise_floor_s": NOISE_FLOOR_S,
            "targets": len(targets),
            "inputs": 2 * len(shapes),
            "non_linear": bad,
            "slowest_at_4n": slowest,
            "highest_ratios": worst,
        }
    if not args.patterns_only:
        result["pipeline"] = {
            "lengths": args.lengths,
            "limit_s": args.limit_s,
            "documents": pipeline_timings(shapes, args.lengths, args.limit_s),
        }
    if not args.patterns_only or args.out != ap.get_default("out"):
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False))
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
