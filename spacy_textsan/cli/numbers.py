"""Numeric options of the commands, each declared once with its range
(:func:`number_option`). The value is parsed from the text given and checked
while the command line is read, so that a bad one stops the command with one
line naming the option before anything is read or written: a word that is not
a number, ``inf``, ``nan``, a negative or zero value where it means nothing,
and a value beyond what the code supports (a timer of more than a day, a
batch that no islice or process pool takes)."""

import math
from dataclasses import dataclass
from typing import Any

import typer

from .util import fail

#: Documents per ``nlp.pipe`` batch.
MAX_BATCH = 100_000
#: Processes of ``--n-process`` and ``--workers``: each loads the pipeline once.
MAX_PROCESSES = 256
#: Seconds of a time budget (a document, a request): one day.
MAX_SECONDS = 86_400.0
#: Counts of documents, records, occurrences, background records.
MAX_COUNT = 1_000_000_000
#: Bytes of one request to the service (``--max-request-bytes``): 2 GiB.
MAX_REQUEST_BYTES = 2**31 - 1
#: Ancestors of a knowledge-base chain (``--max-chain``).
MAX_CHAIN = 100


@dataclass(frozen=True)
class NumberRange:
    """The values an option takes: ``low`` to ``high`` (both included), and
    ``off`` (a value outside them that turns the setting off, e.g. 0 for no
    time limit, described by ``off_means``)."""

    option: str
    kind: type
    low: float
    high: float
    off: float | None = None
    off_means: str = "off"
    unit: str = ""

    def describe(self) -> str:
        """``"a whole number from 1 to 100000"``, ``"0 (no limit) or a number from 0.001 to 86400 seconds"``."""
        unit = f" {self.unit}" if self.unit else ""
        whole = "a whole number" if self.kind is int else "a number"
        text = f"{whole} from {_show(self.low)} to {_show(self.high)}{unit}"
        return text if self.off is None else f"{_show(self.off)} ({self.off_means}) or {text}"

    def parse(self, value: Any) -> Any:
        """The number ``value`` (the text given) stands for; one line on stderr
        and exit 1 if it is not one of the range's."""
        if not isinstance(value, str):  # the default, already a number
            return value
        try:
            number = self.kind(value.strip())
        except ValueError:
            fail(f"{self.option} must be {self.describe()}, not {value!r}")
        if number != self.off and not (math.isfinite(number) and self.low <= number <= self.high):
            fail(f"{self.option} must be {self.describe()}, not {value!r}")
        return number


def number_option(
    default: Any,
    *names: str,
    kind: type = int,
    low: float,
    high: float,
    off: float | None = None,
    off_means: str = "off",
    unit: str = "",
    help: str = "",
    hidden: bool = False,
) -> Any:
    """A ``typer.Option`` whose value must lie in its range (:class:`NumberRange`);
    the range ends its help text."""
    rule = NumberRange(names[0], kind, low, high, off, off_means, unit)
    described = f"{help}: {rule.describe()}" if help else rule.describe()
    return typer.Option(default, *names, parser=rule.parse, help=described, hidden=hidden)


def _show(number: float | None) -> str:
    """``1``, ``0.001``, ``86400``: as a person writes the number."""
    return f"{number:g}" if isinstance(number, float) and not float(number).is_integer() else f"{int(number or 0)}"
