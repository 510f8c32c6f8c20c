"""Entities: the candidate spans that mention one entity, grouped.

Mentions of one entity share ``span._.entity_id`` (a span without one is its
own entity: :func:`~.extensions.entity_key`). Every component that reasons
about entities rather than spans (``kanon_risk``, ``web_risk``,
``mask_optimizer``, ``generalizer``) groups the candidates with
:func:`group_entities`, so that they all agree on what an entity is.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from spacy.tokens import Span

from .extensions import entity_key
from .text_folding import collapse_whitespace

__all__ = ["Entity", "group_entities", "clean_term"]


@dataclass
class Entity:
    """The mentions of one entity, in the order :func:`group_entities` met them."""

    key: str
    spans: list[Span]

    @property
    def representative(self) -> Span:
        """The span that stands for the entity: its first mention."""
        return self.spans[0]

    @property
    def label(self) -> str:
        """The entity's label: its first mention's."""
        return self.spans[0].label_

    def fullest(self, clean: Callable[[str], str] | None = None, *, stable: bool = False) -> str:
        """The entity's fullest mention: its longest text, measured (and
        returned) after ``clean``. Ties go to the first mention or, with
        ``stable``, to the greatest text, a choice that does not depend on the
        order of the mentions (what a surrogate derived from it in every
        document needs)."""
        texts = [s.text if clean is None else clean(s.text) for s in self.spans]
        if stable:
            return max(texts, key=lambda t: (len(t), t))
        return max(texts, key=len)

    @property
    def surface(self) -> str:
        """The fullest mention as a plain term (:func:`clean_term`; ties: the
        first mention): what the entity is searched for."""
        return self.fullest(clean_term)


def clean_term(text: str) -> str:
    """A mention as a term: whitespace collapsed, double quotes removed."""
    return collapse_whitespace(text.replace('"', " "))


def group_entities(spans: Iterable[Span], *, in_text_order: bool = True, by_label: bool = False) -> list[Entity]:
    """Spans grouped by :func:`~.extensions.entity_key`, entities ordered by
    their first mention.

    in_text_order: the spans are taken in text order (start, then end);
        False: in the order given.
    by_label: mentions with different labels are different entities even
        when they share an entity key (both then have that ``key``).
    """
    ordered = sorted(spans, key=lambda s: (s.start_char, s.end_char)) if in_text_order else spans
    groups: dict[tuple[str, str], Entity] = {}
    for span in ordered:
        key = entity_key(span)
        group = (span.label_ if by_label else "", key)
        entity = groups.get(group)
        if entity is None:
            groups[group] = Entity(key, [span])
        else:
            entity.spans.append(span)
    return list(groups.values())
