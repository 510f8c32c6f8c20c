"""MkDocs hook: the results tables, rendered from ``benchmarks/results/*.json`` at build time.

A page holds a marker such as ``<!-- results:speed -->``; :func:`on_page_markdown`
replaces it with the markdown table that :data:`TABLES` renders from the JSON
files it names, so a table cannot drift from the results it shows and nothing
generated is committed. A field the table needs that is missing (or ``null``
where a number is needed) fails the build with the file and the field's path:
a table never shows ``None``.

Each renderer takes the parsed JSON of its files (:class:`Results`) and returns
markdown; ``tests/test_docs.py`` renders each from a small hand-written fixture.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
MARKER = re.compile(r"<!--\s*results:([A-Za-z0-9_]+)\s*-->")
_MISSING = object()


class ResultsError(ValueError):
    """A results file or a field a table needs is missing."""


class Results:
    """The parsed JSON of one results file, read by paths that fail loudly.

    The containers it hands out remember where they sit in the file, so a
    field missing under one of them is reported by its full path."""

    def __init__(self, name: str, data: Any):
        self.name = name
        self.data = data
        self._paths: dict[int, tuple[str | int, ...]] = {}
        self._remember(data, ())

    def _remember(self, value: Any, path: tuple[str | int, ...]) -> None:
        if isinstance(value, dict):
            children: Iterable[tuple[str | int, Any]] = value.items()
        elif isinstance(value, list):
            children = enumerate(value)
        else:
            return
        self._paths.setdefault(id(value), path)
        for key, child in children:
            if isinstance(child, (dict, list)):
                self._paths.setdefault(id(child), (*path, key))

    def get(self, *path: str | int, node: Any = _MISSING, optional: bool = False) -> Any:
        """The value at ``path`` (keys and list indexes) under ``node`` (default: the
        root). Missing, or ``None`` unless ``optional``: :class:`ResultsError`."""
        value = self.data if node is _MISSING else node
        where = self._paths.get(id(value), ()) if node is not _MISSING else ()
        for i, key in enumerate(path):
            try:
                value = value[key]
            except (KeyError, IndexError, TypeError):
                value = _MISSING
            if value is _MISSING:
                raise ResultsError(f"{self.name}: missing field {_dotted((*where, *path[: i + 1]))!r}")
        if value is None and not optional:
            raise ResultsError(f"{self.name}: field {_dotted((*where, *path))!r} is null")
        self._remember(value, (*where, *path))
        return value


def _dotted(path: Sequence[str | int]) -> str:
    return ".".join(str(p) for p in path)


# -- number formats --------------------------------------------------------------------------------


def f2(x: float) -> str:
    return f"{x:.2f}"


def f3(x: float) -> str:
    return f"{x:.3f}"


def pct(x: float, digits: int = 1) -> str:
    """``0.7796`` -> ``78.0 %``."""
    return f"{100 * x:.{digits}f} %"


def thousands(x: float) -> str:
    return f"{round(x):,}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# -- speed.json ------------------------------------------------------------------------------------

SPEED_ROWS = (
    ("spacy_tokenizer", 'spaCy tokenizer only (`spacy.blank("en")`, the floor)'),
    ("spacy_ner", "en_core_web_sm NER only (what privacy_ner runs)"),
    ("spacy_full", "en_core_web_sm, all components (what Presidio runs)"),
    ("presidio_seq", "Presidio analyzer + anonymizer, one text at a time"),
    ("presidio_batch", "Presidio, `BatchAnalyzerEngine`"),
    ("presidio_batch_2proc", "Presidio, `BatchAnalyzerEngine`, `n_process=2` (two cores)"),
    ("textsan_1proc", "spacy-textsan default, `--ner-process off` (one process)"),
    ("textsan", "**spacy-textsan default**, `--ner-process auto` (NER in its own process: two cores)"),
)


def render_speed(speed: Results) -> str:
    """The systems the run measured, in :data:`SPEED_ROWS` order (a run of some systems
    only shows those); CPU seconds count every process of a system."""
    rows = []
    systems = speed.get("systems")
    speed.get("systems", "textsan")  # whatever else it measured, a run holds the default pipeline
    for key, label in SPEED_ROWS:
        if key not in systems:
            continue
        system = speed.get("systems", key)
        if key == "textsan":
            label += " (" + " → ".join(speed.get("pipe_names", node=system)) + ")"
        rows.append(
            (
                label,
                f2(speed.get("docs_per_s", node=system)),
                thousands(speed.get("chars_per_s", node=system)),
                f"{speed.get('cpu_s', node=system):.1f}",
                thousands(speed.get("peak_rss_mb", node=system)),
                f"{speed.get('load_s', node=system):.1f}",
            )
        )
    return table(("system", "docs/s", "chars/s", "CPU s", "peak RSS MB", "load s"), rows)


def render_speed_breakdown(speed: Results) -> str:
    rows = [
        (speed.get("name", node=c), f2(speed.get("seconds", node=c)), pct(speed.get("share", node=c)))
        for c in speed.get("breakdown", "components")
    ]
    return table(("part", "seconds", "share"), rows)


def render_speed_long_docs(speed: Results) -> str:
    rows = [
        (
            thousands(speed.get("chars", node=d)),
            f2(speed.get("seconds", node=d)),
            thousands(speed.get("chars_per_s", node=d)),
            thousands(speed.get("peak_rss_mb", node=d)),
        )
        for d in speed.get("long_docs")
    ]
    return table(("characters", "seconds", "chars/s", "peak RSS MB"), rows)


def _met(met: bool) -> str:
    return "**met**" if met else "**not met**"


def render_speed_targets(speed: Results) -> str:
    """The speed targets: the default pipeline against Presidio's variant of the run
    (``presidio_variant``) and against the NER floor (``spacy_ner``)."""
    systems = speed.get("systems")
    textsan = speed.get("textsan", node=systems)
    presidio = speed.get(speed.get("presidio_variant"), node=systems)
    presidio_2proc = speed.get("presidio_batch_2proc", node=systems)
    ner = speed.get("spacy_ner", node=systems)
    ratios, targets = speed.get("ratios"), speed.get("targets")
    t_dps, p_dps, n_dps = (speed.get("docs_per_s", node=s) for s in (textsan, presidio, ner))

    throughput_met = speed.get("throughput_ge_2_5x_presidio", node=targets)
    throughput = _met(throughput_met)
    if not throughput_met and n_dps / p_dps < 2.5:
        throughput += f": the NER floor itself is only {n_dps / p_dps:.2f}× Presidio here"
    floor = speed.get("textsan_over_ner_floor_docs_per_s", node=ratios)

    peak, child = speed.get("peak_rss_mb", node=textsan), speed.get("children_peak_rss_mb", node=textsan)
    rss = f"**{thousands(peak)} MB**"
    if child:
        rss += f" ({thousands(peak - child)} + the NER process's {thousands(child)})"
    rss += f" vs {thousands(speed.get('peak_rss_mb', node=presidio))} MB"
    rss_1proc = thousands(speed.get("systems", "textsan_1proc", "peak_rss_mb"))
    rows = [
        (
            "default pipeline ≥ 2.5× Presidio's docs/s",
            f"**{f2(speed.get('textsan_over_presidio_docs_per_s', node=ratios))}×**"
            f" ({f2(t_dps)} vs {f2(p_dps)} docs/s, Presidio's faster path);"
            f" {f2(speed.get('textsan_over_presidio_2proc_docs_per_s', node=ratios))}× Presidio on two processes"
            f" ({f2(speed.get('docs_per_s', node=presidio_2proc))})",
            throughput,
        ),
        (
            "≥ 0.85 of the NER floor",
            f"**{f2(floor)}** ({f2(t_dps)} vs {f2(n_dps)} docs/s)",
            _met(speed.get("ge_0_85_of_ner_floor", node=targets)),
        ),
        (
            "peak RSS ≤ Presidio's",
            rss,
            f"{_met(speed.get('peak_rss_le_presidio', node=targets))} (`--ner-process off`: {rss_1proc} MB)",
        ),
    ]
    return table(("speed target", "measured", ""), rows)


# -- serve_load.json -------------------------------------------------------------------------------


def _serve_cells(serve: Results, server: str, level: str) -> tuple[str, str, str, str]:
    lv = serve.get("servers", server, "levels", level)
    latency = f"{serve.get('latency_ms', 'p50', node=lv):.0f} / {serve.get('latency_ms', 'p99', node=lv):.0f}"
    cores = serve.get("cpu_s", "server", node=lv) / serve.get("wall_s", node=lv)
    return f2(serve.get("rps", node=lv)), latency, f2(cores), str(serve.get("failed", node=lv))


def render_serve_load(serve: Results) -> str:
    levels = sorted(serve.get("servers", "textsan", "levels"), key=int)
    rows = []
    for level in levels:
        t_rps, t_lat, t_cores, t_failed = _serve_cells(serve, "textsan", level)
        p_rps, p_lat, p_cores, _ = _serve_cells(serve, "presidio", level)
        ratio = serve.get("ratios", level, "throughput_textsan_over_presidio")
        rows.append((level, t_rps, t_lat, t_cores, t_failed, p_rps, p_lat, p_cores, f"**{ratio:.2f}×**"))
    header = (
        "clients",
        "textsan req/s",
        "textsan p50 / p99 ms",
        "cores",
        "failed",
        "Presidio req/s",
        "Presidio p50 / p99 ms",
        "cores",
        "throughput ratio",
    )
    return table(header, rows)


def render_serve_memory(serve: Results) -> str:
    rows = []
    for server, label in (("textsan", "textsan (server + NER process)"), ("presidio", "Presidio")):
        if server == "presidio" and "memory" not in serve.get("servers", server):
            continue  # the run gave the memory run to textsan only (--memory-servers textsan)
        mem = serve.get("servers", server, "memory")
        samples = ", ".join(f"{serve.get('rss_mb', node=s):.0f}" for s in serve.get("rss_samples", node=mem))
        rows.append(
            (
                label,
                str(serve.get("requests_done", node=mem)),
                str(serve.get("clients", node=mem)),
                f"{serve.get('rss_before_mb', node=mem):.1f}",
                f"{serve.get('rss_after_mb', node=mem):.1f}",
                f"{serve.get('rss_growth_mb', node=mem):+.1f}",
                samples,
            )
        )
    header = (
        "server",
        "requests",
        "clients",
        "RSS before MB",
        "RSS after MB",
        "growth MB",
        "every 1,000 requests (MB)",
    )
    return table(header, rows)


# -- repeated_mentions.json ------------------------------------------------------------------------


def render_repeated_mentions(rep: Results) -> str:
    rows = [
        (
            thousands(rep.get("repetitions", node=r)),
            thousands(rep.get("chars", node=r)),
            f"{rep.get('seconds', node=r):.1f}",
            f"{thousands(rep.get('peak_rss_mb', node=r))} MB",
        )
        for r in rep.get("rows")
    ]
    return table(("repetitions", "characters", "seconds", "peak RSS"), rows)


# -- multidomain.json ------------------------------------------------------------------------------

#: rows of the DIRECT part: the categories each sums
MULTIDOMAIN_GROUPS = (
    ("person_name", ("person_name",)),
    ("address", ("address",)),
    ("postcode", ("postcode",)),
    ("date_of_birth", ("date_of_birth",)),
    ("phone", ("phone",)),
    ("id_number", ("id_number",)),
    ("iban / credit_card", ("iban", "credit_card")),
    ("email / obfuscated_email", ("email", "obfuscated_email")),
    ("username / handle / password", ("username", "handle", "password")),
    ("licence_plate", ("licence_plate",)),
    ("url / ip / ipv6 / mac / mrn", ("url", "ip", "ipv6", "mac", "mrn")),
)
MULTIDOMAIN_SYSTEMS = (
    ("textsan-mask", "textsan mask"),
    ("textsan-generalize", "textsan generalize"),
    ("textsan-pseudonym", "textsan pseudonym"),
    ("textsan-mask_all", "textsan mask_all"),
    ("presidio", "Presidio"),
)


def render_multidomain(md: Results) -> str:
    by_name = {md.get("system", node=s): s for s in md.get("systems")}
    systems = []
    for key, _ in MULTIDOMAIN_SYSTEMS:
        if key not in by_name:
            raise ResultsError(f"{md.name}: missing field 'systems' entry with system {key!r}")
        systems.append(by_name[key])
    grouped = {c for _, cats in MULTIDOMAIN_GROUPS for c in cats}
    for s in systems:
        for cat, values in md.get("categories", node=s).items():
            if md.get("type", node=values) == "DIRECT" and cat not in grouped:
                raise ResultsError(f"{md.name}: DIRECT category {cat!r} is in no row of the table")
    rows = []
    for label, cats in MULTIDOMAIN_GROUPS:
        cells = [label]
        for s in systems:
            left = sum(md.get("categories", c, "left", node=s) for c in cats)
            tried = sum(md.get("categories", c, "tried", node=s) for c in cats)
            cells.append(f"{left} / {tried}")
        rows.append(cells)
    rows.append(
        ["**DIRECT total**"]
        + [
            f"{md.get('direct', 'left', node=s)} / {md.get('direct', 'tried', node=s)}"
            f" (partly {md.get('direct', 'partly', node=s)})"
            for s in systems
        ]
    )
    rows.append(
        ["QUASI left"]
        + [
            f"{md.get('quasi', 'left', node=s)} / {md.get('quasi', 'tried', node=s)}"
            f" ({pct(md.get('quasi', 'left_share', node=s))})"
            for s in systems
        ]
    )
    rows.append(
        ["probes leaked"] + [f"{md.get('probes', 'leaked', node=s)} / {md.get('probes', 'n', node=s)}" for s in systems]
    )
    rows.append(["characters kept"] + [pct(md.get("kept_share", node=s)) for s in systems])
    rows.append(["docs/s (same run)"] + [f"{md.get('docs_per_s', node=s):.1f}" for s in systems])
    header = ["DIRECT identifiers (left / tried)"] + [label for _, label in MULTIDOMAIN_SYSTEMS]
    return table(header, rows)


# -- zero_shot_{dev,train}.json --------------------------------------------------------------------


def render_zero_shot(dev: Results, train: Results) -> str:
    rows = []
    for split, res in (("dev", dev), ("train", train)):
        m = res.get("metrics")
        rows.append(
            (
                split,
                str(res.get("n_docs", node=m)),
                f3(res.get("recall", node=m)),
                f3(res.get("recall_direct", node=m)),
                f3(res.get("recall_quasi", node=m)),
                f3(res.get("er_di", node=m)),
                f3(res.get("er_qi", node=m)),
                f3(res.get("precision", node=m)),
                f3(res.get("per_type_recall", "DEM", node=m)),
            )
        )
    header = (
        "split",
        "docs",
        "token recall",
        "recall DIRECT",
        "recall QUASI",
        "ERdi",
        "ERqi",
        "precision",
        "DEM recall",
    )
    return table(header, rows)


def render_zero_shot_types(dev: Results) -> str:
    per_type = dev.get("metrics", "per_type_recall")
    labels = sorted(per_type)
    return table(
        ["TAB dev, token recall", *labels], [["default", *(f3(dev.get(lab, node=per_type)) for lab in labels)]]
    )


# -- risk_{dev,train}.json -------------------------------------------------------------------------

RISK_LABELS = {
    "mask_all": "mask_all (everything detected)",
    "lm + optimizer": "lm_risk + optimizer",
    "kanon + optimizer": "kanon_risk + optimizer",
    "lm + kanon + optimizer": "lm_risk + kanon_risk + optimizer (`risk.cfg`)",
}


def _risk_label(key: str) -> str:
    if key in RISK_LABELS:
        return RISK_LABELS[key]
    if key.startswith("kanon greedy"):
        return "kanon_risk greedy (Algorithm 1 of Papadopoulou et al. 2022b)"
    return key


def render_risk(dev: Results, train: Results) -> str:
    parts = []
    for res in (dev, train):
        rows = []
        for key, v in res.get("variants").items():
            p50 = res.get("solve_ms_p50", node=v, optional=True)
            p99 = res.get("solve_ms_p99", node=v, optional=True)
            solve = "–" if p50 is None or p99 is None else f"{p50:.2f} / {p99:.2f} ms"
            rows.append(
                (
                    _risk_label(key),
                    f3(res.get("recall", node=v)),
                    f3(res.get("er_di", node=v)),
                    f3(res.get("er_qi", node=v)),
                    f3(res.get("precision", node=v)),
                    f3(res.get("weighted_precision", node=v)),
                    solve,
                )
            )
        title = f"variant ({res.get('split')}, {res.get('n_docs')} docs)"
        parts.append(table((title, "recall", "ERdi", "ERqi", "precision", "WP", "solve p50 / p99"), rows))
    return "\n\n".join(parts)


# -- trained_dev.json ------------------------------------------------------------------------------

TRAINED_LABELS = {
    "zero-shot default": "zero-shot default (`default.cfg`)",
    "trained ner alone (mask_all)": "trained NER alone + rules, every candidate masked",
    "assembled, no supervised masks": "assembled, supervised_risk's masks off (`risk_thresholds = {}`)",
    "assembled pipeline (as packaged)": "**assembled, as packaged**",
    "assembled, supervised decides t=0.5": "assembled, supervised_risk decides the quasi-identifiers, t = 0.5",
    "assembled, supervised decides t=0.7": "assembled, supervised_risk decides the quasi-identifiers, t = 0.7",
    "assembled, supervised decides t=0.9": "assembled, supervised_risk decides the quasi-identifiers, t = 0.9",
    "assembled, supervised keeps under t=0.1": "assembled, a span supervised_risk scores under 0.1 kept",
    "assembled, supervised keeps under t=0.5": "assembled, a span supervised_risk scores under 0.5 kept",
}


def render_trained(trained: Results) -> str:
    rows = []
    for key, v in trained.get("variants").items():
        label = TRAINED_LABELS.get(key, "the package installed from its sdist" if key.startswith("installed") else key)
        rows.append(
            (
                label,
                f3(trained.get("recall", node=v)),
                f3(trained.get("er_di", node=v)),
                f3(trained.get("er_qi", node=v)),
                f3(trained.get("precision", node=v)),
                f3(trained.get("weighted_precision", node=v)),
                f3(trained.get("per_type_recall", "ORG", node=v)),
                f3(trained.get("per_type_recall", "DEM", node=v)),
                f"{trained.get('docs_per_s', node=v):.1f}",
            )
        )
    title = f"TAB {trained.get('split')}, {trained.get('n_docs')} documents"
    return table((title, "recall", "ERdi", "ERqi", "precision", "WP", "ORG", "DEM", "docs/s"), rows)


def render_trained_models(trained: Results) -> str:
    ner, risk = trained.get("models", "ner"), trained.get("models", "risk")
    rows = [
        (
            "NER (`train-ner`)",
            f"{trained.get('train_seconds', node=ner):.0f} s",
            f"{trained.get('size_mb', node=ner):.1f} MB",
            f"F {trained.get('dev_scores', 'ents_f', node=ner):.3f}, P {trained.get('dev_scores', 'ents_p', node=ner):.3f},"
            f" R {trained.get('dev_scores', 'ents_r', node=ner):.3f}",
        ),
        (
            "supervised_risk (`train-risk`)",
            f"{trained.get('train_seconds', node=risk):.0f} s",
            f"{trained.get('size_mb', node=risk):.1f} MB",
            f"accuracy {trained.get('dev_scores', 'spans_textsan_risk_f', node=risk):.3f}",
        ),
        (
            "assembled pipeline",
            "–",
            f"{trained.get('models', 'assembled', 'size_mb'):.1f} MB",
            "–",
        ),
        ("whole workflow (`spacy project run train`)", f"{trained.get('workflow', 'seconds'):.0f} s", "–", "–"),
    ]
    return table(("part", "training time", "size", "scores on the 10 held-out train documents"), rows)


def render_trained_attack(trained: Results) -> str:
    attack = trained.get("reid_attack")
    rows = []
    for key in attack:
        if key == "source":
            continue
        node = trained.get("reid_attack", key)
        rows.append(
            (
                key,
                f"{f3(trained.get('reid', node=node))} ({trained.get('n_reid', node=node)} of {trained.get('n_docs')})",
                f3(trained.get("chars_kept", node=node)),
                f3(trained.get("tab", "recall", node=node)),
                f3(trained.get("tab", "precision", node=node)),
            )
        )
    return table(("variant", "re-identified", "characters kept", "recall", "precision"), rows)


def render_trained_targets(trained: Results) -> str:
    targets = trained.get("targets")
    return table(("target", "result"), [(k, trained.get(k, node=targets)) for k in targets])


# -- reid_attack.json ------------------------------------------------------------------------------


def render_reid_attack(reid: Results) -> str:
    rows = []
    for p in reid.get("points"):
        label = reid.get("label", node=p)
        if not reid.get("reference", node=p) and reid.get("configured", node=p) and reid.get("sweep", node=p):
            label = f"**{label} (as configured)**"
        tab = reid.get("tab", node=p)
        rows.append(
            (
                label,
                f"{f3(reid.get('reid', node=p))} ({reid.get('n_reid', node=p)})",
                f3(reid.get("reid_random_ties", node=p)),
                f3(reid.get("chars_kept", node=p)),
                f3(reid.get("recall", node=tab)),
                f3(reid.get("er_di", node=tab)),
                f3(reid.get("precision", node=tab)),
            )
        )
    title = f"TAB {reid.get('split')}, {reid.get('n_docs')} documents"
    header = (title, "re-identified", "with random ties", "chars kept", "token recall", "ERdi", "precision")
    return table(header, rows)


# -- wiki_reid.json, wiki_reid_calibration.json ----------------------------------------------------


def _wiki_label(point_label: str) -> str:
    fixed = {
        "clear": "clear text",
        "human masks": "human masks (`manual_masks`)",
        "presidio": "Presidio defaults",
        "mask_all": "textsan `mask_all.cfg`",
        "default_shipped_background": "textsan default, shipped (TAB) background",
        "default_generalize": "textsan default, Wiki553 background with its dense part, `--strategy generalize`",
        "default_lexical_padded": "textsan default, lexical only, background padded with 20,000 other biographies",
    }
    if point_label in fixed:
        return fixed[point_label]
    variant, _, k = point_label.partition(" k=")
    k = k or "10"
    if variant == "default_lexical":
        return f"textsan default, Wiki553 background, lexical only (`dense = off`), k = {k}"
    if variant == "default":
        text = f"textsan default, Wiki553 background with its dense part, k = {k}"
        return f"**{text} (as configured)**" if k == "10" else text
    return point_label


#: the attackers of benchmarks/attackers, in the order of the table's columns, and "any" of them
WIKI_ATTACKERS = (
    ("bm25", "BM25"),
    ("dense", "dense"),
    ("bm25_plain", "BM25, words as written"),
    ("pairs", "words + pairs"),
    ("chargram", "character n-grams"),
    ("tantivy", "tantivy"),
    ("any", "any of them"),
)


def render_wiki_reid(wiki: Results) -> str:
    points = wiki.get("points")
    columns = [(key, label) for key, label in WIKI_ATTACKERS if any(key in (p.get("attack") or {}) for p in points)]
    rows = []
    for p in points:
        cells = [_wiki_label(wiki.get("label", node=p))]
        for key, _ in columns:
            cells.append(pct(wiki.get("attack", key, "top1", node=p)) if key in (p.get("attack") or {}) else "–")
        rows.append((*cells, pct(wiki.get("chars_kept", node=p))))
    title = f"Wiki553 dev, {wiki.get('n_docs')} abstracts, {wiki.get('n_background')} background records"
    return table((title, *(f"{label} top-1" for _, label in columns), "chars kept"), rows)


def render_wiki_reid_calibration(cal: Results) -> str:
    parts = []
    for variant, label in (("default", "with its dense part"), ("default_lexical", "lexical only")):
        bands = cal.get("variants", variant, "calibration", "attack.k", "bands")
        attackers = [(key, label) for key, label in WIKI_ATTACKERS if any(f"{key}_n_reid" in b for b in bands)]
        rows = []
        for b in bands:
            n = cal.get("n", node=b)
            cells = [cal.get("band", node=b), str(n)]
            for attacker, _ in attackers:
                hits = cal.get(f"{attacker}_n_reid", node=b)
                share = cal.get(f"{attacker}_reid", node=b, optional=True)
                cells.append(f"{hits} ({pct(share)})" if share is not None else f"{hits}")
            rows.append(cells)
        n_docs = cal.get("variants", variant, "n_documents")
        title = f"reported k ({label}, {n_docs} documents)"
        parts.append(table((title, "documents", *(f"{label} re-identified" for _, label in attackers)), rows))
    return "\n\n".join(parts)


def render_reid_calibration(cal: Results) -> str:
    attackers = [(key, label) for key, label in WIKI_ATTACKERS if key in cal.get("attackers")]
    rows = []
    chosen = cal.get("chosen")
    for r in cal.get("settings"):
        k, margin = cal.get("k", node=r), cal.get("margin", node=r)
        label = f"k = {k}, margin = {margin}"
        if (k, margin) == (cal.get("k", node=chosen), cal.get("margin", node=chosen)):
            label = f"**{label} (chosen)**"
        cells = [label, *(pct(cal.get("top1", key, node=r)) for key, _ in attackers)]
        rows.append((*cells, pct(cal.get("any", node=r)), pct(cal.get("chars_kept", node=r))))
    title = f"calibration set ({cal.get('n_docs')} documents, {cal.get('n_background')} records)"
    header = (title, *(f"{label} top-1" for _, label in attackers), "any of them", "chars kept")
    return table(header, rows)


# -- hostile_inputs.json ---------------------------------------------------------------------------

SLOW_S = 60.0


def render_hostile_inputs(hostile: Results) -> str:
    pipeline = hostile.get("pipeline")
    documents = hostile.get("documents", node=pipeline)
    limit = hostile.get("limit_s", node=pipeline)
    rows = []
    for length in hostile.get("lengths", node=pipeline):
        run = slow = 0
        names = []
        for d in documents:
            shape = hostile.get("shape", node=d)
            if f"skipped_{length}" in d or f"timed_out_{length}" in d:
                run += f"timed_out_{length}" in d
                slow += 1
                names.append(f"`{shape}`")
                continue
            seconds = hostile.get(f"seconds_{length}", node=d)
            run += 1
            if seconds > SLOW_S:
                slow += 1
                names.append(f"`{shape}`")
        rows.append((f"{length:,}", str(len(documents)), str(run), str(slow), ", ".join(names) or "–"))
    patterns = hostile.get("patterns")
    header = (
        "characters",
        "shapes",
        "run",
        f"over {SLOW_S:.0f} s (or stopped at {limit:.0f} s, or skipped)",
        "those shapes",
    )
    out = table(header, rows)
    non_linear = hostile.get("non_linear", node=patterns)
    out += (
        f"\n\nPatterns and finders checked: {hostile.get('targets', node=patterns)} on"
        f" {hostile.get('inputs', node=patterns)} inputs, {len(non_linear)} non-linear"
        f" (time ratio over {hostile.get('max_ratio', node=patterns):g} from n to"
        f" {hostile.get('factor', node=patterns)}n)."
    )
    return out


# -- gazetteer_dev.json, generalizer_{dev,train}.json ----------------------------------------------

GAZETTEER_LABELS = {"privacy_ner + gazetteer": "**privacy_ner + gazetteer**"}


def render_gazetteer(dev: Results) -> str:
    rows = []
    for key, v in dev.get("variants").items():
        rows.append(
            (
                GAZETTEER_LABELS.get(key, key),
                f3(dev.get("recall", node=v)),
                f3(dev.get("precision", node=v)),
                f3(dev.get("er_qi", node=v)),
                f3(dev.get("mention_recall_by_type", "DEM", node=v)),
                f3(dev.get("token_recall_by_type", "DEM", node=v)),
                f3(dev.get("token_recall_by_type", "MISC", node=v)),
                f3(dev.get("token_recall_by_type", "ORG", node=v)),
                f"{dev.get('docs_per_s', node=v):.1f}",
            )
        )
    header = (
        f"{dev.get('split')}, {dev.get('n_docs')} docs",
        "token recall",
        "precision",
        "ERqi",
        "DEM mention recall",
        "DEM token recall",
        "MISC token recall",
        "ORG token recall",
        "docs/s",
    )
    return table(header, rows)


GENERALIZER_TYPES = ("LOC", "ORG", "DEM", "MISC")


def _share(with_option: int, masked: int) -> str:
    return f"{with_option}/{masked} = {f3(with_option / masked)}"


def render_generalizer(dev: Results, train: Results) -> str:
    rows = []
    for res in (dev, train):
        total = _share(res.get("kb_types_with_option"), res.get("kb_types_masked"))
        cells = [f"{res.get('split')}, {res.get('n_docs')} docs", f"**{total}**"]
        for label in GENERALIZER_TYPES:
            t = res.get("by_type", label)
            cells.append(_share(res.get("with_option", node=t), res.get("masked", node=t)))
        rows.append(cells)
    return table(("split", "+".join(GENERALIZER_TYPES), *GENERALIZER_TYPES), rows)


#: the examples the generalizer page shows, the first of ``examples``
GENERALIZER_EXAMPLES = 10


def render_generalizer_examples(dev: Results) -> str:
    rows = []
    for i in range(GENERALIZER_EXAMPLES):
        e = dev.get("examples", i)
        rows.append((dev.get("label", node=e), dev.get("original", node=e), f"`{dev.get('replacement', node=e)}`"))
    return table(("type", "original", "replacement"), rows)


# -- fault_cases.json ------------------------------------------------------------------------------


def render_fault_cases(faults: Results) -> str:
    rows = [
        (
            faults.get("service", node=c),
            faults.get("fault", node=c),
            f2(faults.get("seconds_median", node=c)),
            str(faults.get("exit_code", node=c)),
            faults.get("status", node=c),
            ", ".join(faults.get("masked", node=c)) or "–",
        )
        for c in faults.get("cases")
    ]
    return table(("service", "fault", "seconds", "exit", "status", "masked"), rows)


# -- reid_speed.json, background_scale.json --------------------------------------------------------

REID_SPEED_LABELS = {
    "TAB dev + train, shipped background": "TAB dev + train ({n_docs} judgments), shipped background",
    "Wiki553 dev abstracts, Wiki553 background (without its dense part)": "Wiki553 dev abstracts, Wiki553 background",
    "Wiki553 dev abstracts, Wiki553 background (with its dense part)": "the same, with the background's dense part",
}


def render_reid_speed(reid: Results) -> str:
    """The overhead is in bold where the run used the shipped background (what the target is about)."""
    rows = []
    for r in reid.get("rows"):
        corpus = reid.get("corpus", node=r)
        overhead = f"{100 * reid.get('overhead', node=r):+.1f} %"
        if "paths.background" not in reid.get("overrides", node=r):
            overhead = f"**{overhead}**"
        rows.append(
            (
                REID_SPEED_LABELS.get(corpus, corpus).format(n_docs=reid.get("n_docs", node=r)),
                f"{f2(reid.get('docs_per_s_without_reid', node=r))} docs/s",
                f"{f2(reid.get('docs_per_s_with_reid', node=r))} docs/s",
                f"{overhead} ({reid.get('reid_ms_per_doc', node=r):.1f} ms)",
            )
        )
    return table(("corpus", "without `reid_risk`", "with", "added per document"), rows)


def _p50_p99(res: Results, node: Any, digits: int) -> str:
    return f"{res.get('p50', node=node):.{digits}f} / {res.get('p99', node=node):.{digits}f} ms"


def render_background_scale(bg: Results) -> str:
    build, tantivy, queries = bg.get("build"), bg.get("tantivy"), bg.get("queries")
    tantivy_build = bg.get("build", node=tantivy)
    version = re.search(r"v(\d+\.\d+)", bg.get("version", node=tantivy))
    if version is None:
        raise ResultsError(f"{bg.name}: field 'tantivy.version' holds no version (vX.Y)")
    runs = bg.get("load", "runs")
    bg.get("load", "runs", 0)  # at least one run
    load_s = [bg.get("load_s", node=r) for r in runs]
    import_s = statistics.median(bg.get("import_s", node=r) for r in runs)
    rss = max(bg.get("rss_mb", node=r) for r in runs)
    plan = bg.get("plan_masks", node=queries)
    name_prior, target = bg.get("name_prior", node=plan), bg.get("target", node=plan)
    rows = [
        (
            "build",
            f"{bg.get('seconds', node=build):.1f} s, peak RSS {bg.get('peak_rss_mb', node=build) / 1000:.2f} GB",
            f"{bg.get('seconds', node=tantivy_build):.1f} s ({bg.get('read_analyse_s', node=tantivy_build):.1f} s of it"
            f" our analyser), {bg.get('peak_rss_mb', node=tantivy_build) / 1000:.2f} GB",
        ),
        (
            "index on disk",
            f"{thousands(bg.get('index_bytes', node=build) / 1e6)} MB ({thousands(bg.get('terms', node=build))} terms)",
            f"{thousands(bg.get('index_bytes', node=tantivy) / 1e6)} MB",
        ),
        (
            "load in a fresh process",
            f"{f2(min(load_s))}–{f2(max(load_s))} s (+{import_s:.1f} s of imports),"
            f" RSS {thousands(rss)} MB",
            "–",
        ),
        (
            "BM25 top-10 p50 / p99",
            f"{_p50_p99(bg, bg.get('scoring_ms', node=queries), 1)} (hit@1 {f2(bg.get('hit_at_1', node=queries))})",
            f"{_p50_p99(bg, bg.get('query_ms', node=tantivy), 1)}"
            f" (top-10 overlap {f2(bg.get('top10_overlap_with_bm25s', node=tantivy))})",
        ),
        (
            "the decision (`plan_masks`) p50 / p99",
            f"{_p50_p99(bg, bg.get('ms', node=name_prior), 0)} (name known to the prior);"
            f" {_p50_p99(bg, bg.get('ms', node=target), 0)} with a known target"
            f" ({bg.get('steps', 'mean', node=target):.0f} masks on average);"
            f" {_p50_p99(bg, bg.get('ms', node=bg.get('self_excluded', node=plan)), 0)}"
            " with the document's own record in the background",
            "–",
        ),
    ]
    header = ("", "`textsan background build` (bm25s)", f"tantivy {version.group(1)} (benchmark only)")
    return table(header, rows)


# -- streaming_{50mb_rules,10mb_ner}.json ----------------------------------------------------------

STREAMING_PIPELINES = {
    "tests/fixtures/cli/rules_only.cfg": "rules only (`tests/fixtures/cli/rules_only.cfg`)",
    "spacy_textsan/configs/mask_all.cfg": "`mask_all.cfg` (NER + rules)",
}


def render_streaming(*runs: Results) -> str:
    rows = []
    for run in runs:
        large, small, met = run.get("one_large_file"), run.get("small_files"), run.get("met")
        pipeline = run.get("pipeline")
        rows.append(
            (
                f"{run.get('megabytes'):g} MB",
                STREAMING_PIPELINES.get(pipeline, f"`{pipeline}`"),
                thousands(run.get("rows")),
                f"{run.get('wall_s', node=large):.1f} s",
                f"{run.get('files', node=small)} files: {run.get('wall_s', node=small):.1f} s",
                f"**{f3(run.get('time_ratio_large_over_small'))}**"
                f" ({'met' if run.get('time_ratio', node=met) else 'not met'})",
                f"**{thousands(run.get('peak_rss_mb', node=large))} MB** /"
                f" {thousands(run.get('peak_rss_mb', node=small))} MB"
                f" ({'met' if run.get('memory', node=met) else 'not met'})",
                "yes" if run.get("same_output") else "no",
            )
        )
    header = (
        "input",
        "pipeline",
        "rows",
        "one large file",
        "same rows in small files",
        "time ratio",
        "peak memory (large / small)",
        "outputs identical",
    )
    return table(header, rows)


# -- the registry and the hook ---------------------------------------------------------------------

#: marker name -> (the results files it reads, without ``.json``; the renderer)
TABLES: dict[str, tuple[tuple[str, ...], Callable[..., str]]] = {
    "speed": (("speed",), render_speed),
    "speed_breakdown": (("speed",), render_speed_breakdown),
    "speed_long_docs": (("speed",), render_speed_long_docs),
    "speed_targets": (("speed",), render_speed_targets),
    "serve_load": (("serve_load",), render_serve_load),
    "serve_memory": (("serve_load",), render_serve_memory),
    "repeated_mentions": (("repeated_mentions",), render_repeated_mentions),
    "multidomain": (("multidomain",), render_multidomain),
    "zero_shot": (("zero_shot_dev", "zero_shot_train"), render_zero_shot),
    "zero_shot_types": (("zero_shot_dev",), render_zero_shot_types),
    "risk": (("risk_dev", "risk_train"), render_risk),
    "trained": (("trained_dev",), render_trained),
    "trained_models": (("trained_dev",), render_trained_models),
    "trained_targets": (("trained_dev",), render_trained_targets),
    "trained_attack": (("trained_dev",), render_trained_attack),
    "reid_attack": (("reid_attack",), render_reid_attack),
    "wiki_reid": (("wiki_reid",), render_wiki_reid),
    "wiki_reid_padded": (("wiki_reid_padded",), render_wiki_reid),
    "wiki_reid_calibration": (("wiki_reid_calibration",), render_wiki_reid_calibration),
    "reid_calibration": (("reid_calibration",), render_reid_calibration),
    "hostile_inputs": (("hostile_inputs",), render_hostile_inputs),
    "gazetteer": (("gazetteer_dev",), render_gazetteer),
    "generalizer": (("generalizer_dev", "generalizer_train"), render_generalizer),
    "generalizer_examples": (("generalizer_dev",), render_generalizer_examples),
    "fault_cases": (("fault_cases",), render_fault_cases),
    "reid_speed": (("reid_speed",), render_reid_speed),
    "background_scale": (("background_scale",), render_background_scale),
    "streaming": (("streaming_50mb_rules", "streaming_10mb_ner"), render_streaming),
}


def load(name: str, results_dir: Path = RESULTS_DIR) -> Results:
    """``benchmarks/results/<name>.json``, parsed."""
    path = results_dir / f"{name}.json"
    label = f"benchmarks/results/{name}.json"
    try:
        return Results(label, json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise ResultsError(f"{label}: no such file") from None
    except json.JSONDecodeError as e:
        raise ResultsError(f"{label}: not JSON ({e})") from None


def render_table(marker: str, results_dir: Path = RESULTS_DIR) -> str:
    """The markdown of ``<!-- results:marker -->``."""
    if marker not in TABLES:
        raise ResultsError(f"unknown results table {marker!r}; known: {', '.join(sorted(TABLES))}")
    files, renderer = TABLES[marker]
    return renderer(*(load(name, results_dir) for name in files))


def render_markdown(markdown: str, results_dir: Path = RESULTS_DIR, where: str = "") -> str:
    """``markdown`` with every results marker replaced by its table."""

    def replace(match: re.Match) -> str:
        try:
            return render_table(match.group(1), results_dir)
        except ResultsError as e:
            raise ResultsError(f"{where}: results table {match.group(1)!r}: {e}" if where else str(e)) from None

    return MARKER.sub(replace, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs event: replace the results markers of a page."""
    from mkdocs.exceptions import PluginError

    try:
        return render_markdown(markdown, where=f"docs/{page.file.src_path}")
    except ResultsError as e:
        raise PluginError(str(e)) from None


#: charts of benchmarks/results shown in the docs, served as results/img/<name> (never copied into docs/)
CHARTS = ("wiki_reid.png", "reid_attack.png", "speed.png")


def on_files(files: Any, config: Any) -> Any:
    """MkDocs event: serve the charts of ``benchmarks/results`` under ``results/img/``."""
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import File

    for name in CHARTS:
        path = RESULTS_DIR / name
        if not path.is_file():
            raise PluginError(f"benchmarks/results/{name}: no such file (a chart the docs show)")
        files.append(File.generated(config, f"results/img/{name}", abs_src_path=str(path)))
    return files
