"""What the commands share: config overrides from the command line, list files,
loading the pipeline with a clear error."""

import json
from collections.abc import Sequence
from pathlib import Path

from ..extensions import TAB_LABELS
from ..generalizer.operators import strategy_settings
from ..io import read_text
from ..pipeline import load_pipeline
from ..risk.reid_index import is_background_dir
from .util import fail as _fail

BACKGROUND_HELP = "Background folder of the risk measures (textsan background build): sets paths.background (default: the shipped one)"
PIPELINE_HELP = "Installed or saved spaCy pipeline, or a .cfg file (default: the bundled zero-shot pipeline)"


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
    """``--set section.key=value`` (value parsed as JSON when it is JSON)."""
    out: dict[str, object] = {}
    for item in settings:
        key, sep, value = item.partition("=")
        if not sep or "." not in key:
            _fail(f"--set must be section.key=value, e.g. paths.kanon_index=assets/idx: {item!r}")
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value
    return out


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
        user_patterns.append({"name": f"cli_{i + 1}", "label": label, "pattern": regex})
    if user_patterns:
        overrides["components.privacy_ner.patterns"] = user_patterns
    if allow_list:
        overrides["components.privacy_ner.allow_list"] = _read_list_file(allow_list)
    if deny_list:
        overrides["components.privacy_ner.deny_list"] = _deny_entries(deny_list)
    if mask_format:
        overrides["components.generalizer.mask_format"] = mask_format
    return overrides


def parse_strategy(value: str | None) -> dict[str, object]:
    """``--strategy generalize`` or ``--strategy pseudonym,DATETIME=generalize,CODE=mask``:
    the default strategy and per-type exceptions, as generalizer overrides."""
    try:
        settings = strategy_settings(value)
    except ValueError as e:
        _fail(f"--{e}")
    return {f"components.generalizer.{key}": setting for key, setting in settings.items()}


def load_or_fail(pipeline: str | None, overrides: dict[str, object] | None = None):
    try:
        return load_pipeline(pipeline, overrides)
    except (OSError, ValueError) as e:
        _fail(f"cannot load pipeline {pipeline or '(default)'}: {e}")


def set_background(overrides: dict[str, object], background: Path | None) -> None:
    """``--background DIR``: the override ``paths.background=DIR``, once DIR is checked to be a background folder."""
    if background is None:
        return
    if not is_background_dir(background):
        _fail(
            f"{background}: not a background folder (no background.json); build one with "
            f"textsan background build {background} --docs FILE"
        )
    given = overrides.get("paths.background")
    if given is not None and str(given) != str(background):
        _fail(f"--background {background} and --set paths.background={given} disagree: pass one of them")
    overrides["paths.background"] = str(background)


def check_background_used(nlp, background: Path | None, pipeline: str | None) -> None:
    """Fail when ``--background`` was given to a pipeline none of whose components reads it."""
    if background is None:
        return
    components = nlp.config.get("components", {})
    if not any(str(components.get(name, {}).get("index_path")) == str(background) for name in nlp.component_names):
        _fail(
            f"--background: the pipeline {pipeline or '(default)'} has no component that reads paths.background "
            "(reid_risk, kanon_risk, residual_risk)"
        )
