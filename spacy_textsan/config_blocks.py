"""The settings a component keeps in registered blocks, and old configs that
still write them flat.

A factory such as ``privacy_ner`` names its blocks in its default config by
reference (``"rule_layer": {"@misc": "spacy_textsan.rule_layer.v1"}``); each
block's settings are the parameters of its registered function. Two things
follow, for every such factory:

* :func:`add_missing_blocks`: an override of a block's setting
  (``components.privacy_ner.rule_layer.deny_list``) needs the block's section
  in the config; a config that leaves the block at its defaults gets it here;
* :func:`moved_setting` and :func:`moved_setting_error`: a setting written
  where it was before it moved into a block (``components.privacy_ner.deny_list``)
  is named with its new place, in one line, instead of spaCy's "unexpected
  argument" and a dump of the config.
"""

import copy
import inspect
from collections.abc import Mapping
from typing import Any

import spacy
from spacy.language import Language
from thinc.api import ConfigValidationError

__all__ = [
    "MovedSettingError",
    "add_missing_blocks",
    "block_parameters",
    "blocks_of",
    "moved_setting",
    "moved_setting_error",
    "moved_setting_message",
]


class MovedSettingError(ValueError):
    """A config sets a component's setting that now lives in one of its blocks."""


def blocks_of(factory: str) -> dict[str, dict[str, Any]]:
    """``{setting: block reference}`` of the blocks in ``factory``'s default config
    (settings whose default is ``{"@<registry>": name}``)."""
    if not Language.has_factory(factory):
        return {}
    defaults = Language.get_factory_meta(factory).default_config or {}
    return {
        key: dict(value)
        for key, value in defaults.items()
        if isinstance(value, Mapping) and any(str(k).startswith("@") for k in value)
    }


def block_parameters(reference: Mapping[str, Any]) -> list[str]:
    """The settings of a block: the parameters of its registered function (none if unknown)."""
    registry, name = next((k[1:], v) for k, v in reference.items() if str(k).startswith("@"))
    try:
        function = spacy.registry.get(registry, name)
    except Exception:  # an unknown registry or name: spaCy reports it when the config is resolved
        return []
    return list(inspect.signature(function).parameters)


def moved_setting(factory: str, key: str) -> tuple[str, str] | None:
    """``(block, registered name)`` of the block of ``factory`` that holds the
    setting ``key``, when ``key`` is not a setting of the factory itself; None otherwise."""
    blocks = blocks_of(factory)
    if key in blocks:
        return None
    for block, reference in blocks.items():
        if key in block_parameters(reference):
            return block, next(str(v) for k, v in reference.items() if str(k).startswith("@"))
    return None


def moved_setting_message(component: str, factory: str, key: str) -> str | None:
    """One line naming ``key``'s new place, or None when ``key`` did not move into a block."""
    moved = moved_setting(factory, key)
    if moved is None:
        return None
    block, name = moved
    return (
        f"{component}.{key} moved to {component}.{block}.{key}: set it in "
        f"[components.{component}.{block}] (@misc = {name!r}) or with components.{component}.{block}.{key}"
    )


def moved_setting_error(error: ConfigValidationError, config: Mapping[str, Any] | None = None) -> str | None:
    """The one-line message of a config error that comes from a setting written
    where it was before it moved into a block; None for any other error.
    ``config``: the pipeline's config, to name the component (else the factory)."""
    for err in error.errors or ():
        loc = [str(part) for part in err.get("loc", ()) if str(part)]
        if "unexpected argument" not in str(err.get("msg", "")) or len(loc) != 2:
            continue
        factory, key = loc
        component = _component_of(factory, key, config)
        message = moved_setting_message(component, factory, key)
        if message is not None:
            return message
    return None


def _component_of(factory: str, key: str, config: Mapping[str, Any] | None) -> str:
    """The component of ``factory`` whose block sets ``key`` in ``config`` (the factory's name if none)."""
    components = (config or {}).get("components", {}) if isinstance(config, Mapping) else {}
    for name, block in components.items():
        if isinstance(block, Mapping) and block.get("factory") == factory and key in block:
            return str(name)
    return factory


def add_missing_blocks(config: dict[str, Any], overrides: Mapping[str, object]) -> list[str]:
    """Give each component of ``config`` (a dict, changed in place) the block
    sections that ``overrides`` set a setting of and that the config leaves at
    their defaults (``components.privacy_ner.rule_layer.deny_list`` on a config
    without ``[components.privacy_ner.rule_layer]``): the block's reference of
    the factory's default config. The sections added, as dotted paths."""
    added = []
    components = config.get("components", {})
    for key in overrides:
        parts = key.split(".")
        if len(parts) < 4 or parts[0] != "components" or parts[1] not in components:
            continue
        component, block = components[parts[1]], parts[2]
        if not isinstance(component, dict) or block in component:
            continue
        reference = blocks_of(str(component.get("factory", ""))).get(block)
        if reference is not None:
            component[block] = copy.deepcopy(reference)
            added.append(".".join(parts[:3]))
    return added
