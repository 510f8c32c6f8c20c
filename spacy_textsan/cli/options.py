"""What the commands share: config overrides from the command line, list files,
loading the pipeline with a clear error."""

import difflib
import inspect
import json
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import spacy
from spacy.language import Language
from thinc.api import Config, ConfigValidationError

from ..config_blocks import block_parameters, blocks_of, moved_setting_message
from ..detect.privacy_ner.rules import compile_user_regex
from ..extensions import TAB_LABELS
from ..io import InputError, read_text
from ..languages import AUTO, LANGUAGES, UnknownLanguageError, language_spec
from ..pipeline import DEFAULT_CONFIG_PATH, load_pipeline
from ..render.mask_format import check_mask_format
from ..render.operators import strategy_settings
from ..risk.reid_index import is_background_dir, read_manifest
from .util import fail as _fail

BACKGROUND_HELP = (
    "Background folder of the risk measures (textsan background build): sets paths.background. Default: the "
    "shipped one, 219 ECHR judgments (TAB): it measures the risk of court rulings only; a document about "
    "someone those judgments do not name is reported 'not measured'"
)
PIPELINE_HELP = "Installed or saved spaCy pipeline, or a .cfg file (default: the bundled zero-shot pipeline)"
LANG_HELP = (
    f"Language of the documents, one of {', '.join(LANGUAGES)}: its default pipeline (with --pipeline: that "
    "pipeline, which must be of this language); the report says each document's language. Default: en"
)


def check_lang(lang: str | None, *, auto: bool = False) -> str | None:
    """``--lang``: a supported language code (or ``auto`` where ``auto`` is
    allowed), else one line listing the supported ones and exit 1."""
    if lang is None or (auto and lang == AUTO):
        return lang
    try:
        return language_spec(lang).code
    except UnknownLanguageError as e:
        _fail(f"--lang: {e}{' (or auto)' if auto else ''}")


def _read_list_file(path: Path) -> list[str]:
    """One entry per line; blank lines and lines starting with # are ignored.
    UTF-8 (or UTF-16/32 with a BOM); raises :class:`InputError` naming the line
    of undecodable bytes."""
    text, _ = read_text(path, allow_empty=True, detect_binary=False, hint="save the file as UTF-8")
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def _deny_entries(path: Path) -> list[dict]:
    """Deny-list lines: "term", or "LABEL<TAB>term" / "LABEL:term"."""
    entries = []
    for line in _read_list_file(path):
        for sep in ("\t", ":"):
            label, found, term = line.partition(sep)
            if found and label.strip() in TAB_LABELS:
                entries.append({"label": label.strip(), "text": term.strip()})
                break
        else:
            entries.append({"label": "MISC", "text": line})
    return entries


def parse_settings(settings: list[str]) -> dict[str, object]:
    """``--set section.key=value`` (value parsed as JSON when it is JSON). A
    number must be finite: ``NaN``, ``Infinity`` and ``1e999`` (JSON that
    Python reads as inf) are refused with one line."""
    out: dict[str, object] = {}
    for item in settings:
        key, sep, value = item.partition("=")
        if not sep or "." not in key:
            _fail(f"--set must be section.key=value, e.g. paths.kanon_index=assets/idx: {item!r}")
        try:
            parsed = json.loads(value, parse_constant=_not_finite, parse_float=_finite_float)
        except _NotFinite:
            _fail(f"--set {key.strip()}: {value.strip()!r} is not a finite number")
        except ValueError:
            parsed = value
        out[key.strip()] = parsed
    return out


class _NotFinite(ValueError):
    pass


def _not_finite(constant: str) -> float:
    raise _NotFinite(constant)


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise _NotFinite(text)
    return number


def build_overrides(
    patterns: list[str],
    allow_list: Path | None,
    deny_list: Path | None,
    mask_format: str | None,
    settings: Sequence[str] = (),
) -> dict[str, object]:
    overrides: dict[str, object] = parse_settings(list(settings))
    user_patterns = []
    for i, p in enumerate(patterns):
        label, sep, regex = p.partition("=")
        if not sep or label not in TAB_LABELS or not regex:
            _fail(f"--pattern must be LABEL=REGEX with LABEL one of {', '.join(TAB_LABELS)}: {p!r}")
        try:
            compile_user_regex(regex, what=f"--pattern {label}")
        except ValueError as e:
            _fail(str(e))
        user_patterns.append({"name": f"cli_{i + 1}", "label": label, "pattern": regex})
    if user_patterns:
        overrides["components.privacy_ner.rule_layer.patterns"] = user_patterns
    try:
        if allow_list:
            overrides["components.privacy_ner.rule_layer.allow_list"] = _read_list_file(allow_list)
        if deny_list:
            overrides["components.privacy_ner.rule_layer.deny_list"] = _deny_entries(deny_list)
    except InputError as e:
        _fail(f"{'--allow-list' if e.path == allow_list else '--deny-list'} {e}")
    if mask_format is not None:
        try:
            overrides["components.generalizer.mask_format"] = check_mask_format(mask_format)
        except ValueError as e:
            _fail(f"--mask-format: {e}")
    return overrides


def parse_strategy(value: str | None) -> dict[str, object]:
    """``--strategy generalize`` or ``--strategy pseudonym,DATETIME=generalize,CODE=mask``:
    the default strategy and per-type exceptions, as generalizer overrides."""
    try:
        settings = strategy_settings(value)
    except ValueError as e:
        _fail(f"--{e}")
    return {f"components.generalizer.{key}": setting for key, setting in settings.items()}


def load_or_fail(
    pipeline: str | None,
    overrides: dict[str, object] | None = None,
    settings: Iterable[str] = (),
    lang: str | None = None,
):
    """The pipeline, or one line on stderr and exit 1. ``settings``: the keys the
    user gave with ``--set``, each checked against the pipeline's config first
    (:func:`check_settings`). ``lang``: the default pipeline of that language
    (``--lang``; with ``pipeline``, which must be of that language)."""
    shown = pipeline or ("(default)" if lang is None else f"(default, {lang})")
    config = str(language_spec(lang).config) if lang is not None and pipeline is None else pipeline
    check_settings(config, settings)
    try:
        return load_pipeline(pipeline, overrides, lang=lang)
    except ConfigValidationError as e:
        _fail(f"cannot load pipeline {shown}: {config_error_line(e)}")
    except (OSError, ValueError) as e:
        _fail(f"cannot load pipeline {shown}: {' '.join(str(e).split())}")


def config_error_line(error: ConfigValidationError) -> str:
    """A config validation error in one line, without the config it dumps."""
    where = f"[{error.parent}] " if error.parent else ""
    problems = "; ".join(
        f"{'.'.join(map(str, err.get('loc', ())))}: {_clean_message(err.get('msg', ''))}" for err in error.errors
    )
    return f"{where}{problems or error.title}"


_CLASS = re.compile(r"<class '([\w.]+)'>")


def _clean_message(message: object) -> str:
    """A pydantic message as a person writes it: "x is not int"."""
    return _CLASS.sub(r"\1", str(message).replace("at root: ", ""))


def base_config(pipeline: str | None) -> Config | None:
    """The config of ``pipeline`` before any override, or None when it cannot be
    read without loading the pipeline (the loader then reports the problem)."""
    if pipeline is None or str(pipeline).endswith(".cfg"):
        path = DEFAULT_CONFIG_PATH if pipeline is None else Path(pipeline)
    elif Path(pipeline).is_dir():
        path = Path(pipeline) / "config.cfg"
    elif spacy.util.is_package(pipeline):
        package = spacy.util.get_package_path(pipeline)
        path = next(iter(sorted(package.glob("*/config.cfg"))), package / "config.cfg")
    else:
        return None
    try:
        return spacy.util.load_config(path, interpolate=False)
    except (OSError, ValueError):
        return None


def check_settings(pipeline: str | None, keys: Iterable[str]) -> None:
    """Fail on a ``--set`` key the pipeline's config does not have: a component
    it lacks, a setting its factory does not take, a section or key that is not
    there. The message names the nearest valid key."""
    keys = list(keys)
    config = base_config(pipeline) if keys else None
    if config is None:
        return
    components = dict(config.get("components", {}))
    if pipeline is not None and not str(pipeline).endswith(".cfg"):
        # a foreign pipeline is completed with these when it lacks a stage (pipeline.complete_pipeline)
        for name in ("privacy_ner", "mask_all", "generalizer"):
            components.setdefault(name, {"factory": name})
    for key in keys:
        parts = key.split(".")
        if parts[0] == "components":
            _check_component_key(key, parts[1:], components)
            continue
        node: object = config
        for depth, part in enumerate(parts):
            if not isinstance(node, dict) or part not in node:
                known = [".".join([*parts[:depth], k]) for k in node] if isinstance(node, dict) else []
                _fail(f"--set {key}: the pipeline's config has no {'.'.join(parts[: depth + 1])}{_nearest(key, known)}")
            node = node[part]


def _check_component_key(key: str, parts: list[str], components: dict) -> None:
    if not parts or not parts[0]:
        _fail(f"--set {key}: name a component and a setting, e.g. components.generalizer.strategy=generalize")
    name = parts[0]
    if name not in components:
        known = [f"components.{c}" for c in components]
        _fail(f"--set {key}: the pipeline has no component {name!r}{_nearest(f'components.{name}', known)}")
    if len(parts) < 2:
        _fail(f"--set {key}: name a setting of {name}, e.g. components.{name}.<setting>=value")
    block = components[name]
    settings = {k for k in block if k != "factory"}
    factory = block.get("factory")
    if factory and Language.has_factory(factory):
        meta = Language.get_factory_meta(factory)
        settings |= set(meta.default_config or {})
        function = spacy.registry.factories.get(meta.factory)
        settings |= {p for p in inspect.signature(function).parameters if p not in ("nlp", "name")}
    elif "source" in block:
        return  # a sourced component: its settings live in the source pipeline
    if parts[1] not in settings:
        moved = moved_setting_message(name, factory, parts[1]) if factory else None
        if moved:
            _fail(f"--set {key}: {moved}")
        known = [f"components.{name}.{s}" for s in sorted(settings)]
        _fail(f"--set {key}: {name} has no setting {parts[1]!r}{_nearest(f'components.{name}.{parts[1]}', known)}")
    # a setting of a block the config leaves at its defaults: one of the block's registered function
    reference = blocks_of(factory).get(parts[1]) if factory and len(parts) > 2 else None
    if reference is not None and parts[1] not in block and parts[2] not in block_parameters(reference):
        known = [f"components.{name}.{parts[1]}.{s}" for s in block_parameters(reference)]
        where = f"components.{name}.{parts[1]}.{parts[2]}"
        _fail(f"--set {key}: {name}.{parts[1]} has no setting {parts[2]!r}{_nearest(where, known)}")


def _nearest(key: str, known: list[str]) -> str:
    """The hint "; did you mean KNOWN?" for the known key whose last part is nearest to
    ``key``'s; the valid keys when none is near."""
    last = {k.rpartition(".")[2]: k for k in known}
    close = difflib.get_close_matches(key.rpartition(".")[2], list(last), n=1, cutoff=0.6)
    if close:
        return f"; did you mean {last[close[0]]}?"
    return f"; valid: {', '.join(known)}" if known else ""


def set_background(overrides: dict[str, object], background: Path | None) -> None:
    """``--background DIR``: the override ``paths.background=DIR``, once DIR is checked to be a background folder."""
    if background is None:
        return
    if not is_background_dir(background):
        _fail(
            f"{background}: not a background folder (no background.json); build one with "
            f"textsan background build {background} --docs FILE"
        )
    try:
        read_manifest(background)
    except ValueError as e:
        _fail(f"--background {e}")
    given = overrides.get("paths.background")
    if given is not None and str(given) != str(background):
        _fail(f"--background {background} and --set paths.background={given} disagree: pass one of them")
    overrides["paths.background"] = str(background)


def check_background_used(nlp, background: Path | None, pipeline: str | None) -> None:
    """Fail when ``--background`` was given to a pipeline none of whose components reads it."""
    if background is None:
        return
    components = nlp.config.get("components", {})

    def reads(name: str) -> bool:
        block = components.get(name, {}).get("background")
        return isinstance(block, dict) and str(block.get("path")) == str(background)

    if not any(reads(name) for name in nlp.component_names):
        _fail(
            f"--background: the pipeline {pipeline or '(default)'} has no component that reads paths.background "
            "(reid_risk, kanon_risk, residual_risk)"
        )
