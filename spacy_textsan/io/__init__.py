"""Input and output of spacy-textsan's files.

Documents are read from TXT, CSV/TSV, JSONL and TAB JSON files into
:class:`Record` objects, one per document, each holding the texts to sanitize
by field (column) name. :func:`write_output` writes the same file back with
only those texts replaced: every other row, column, key and value is kept, in
order.

One of each: :func:`read_text` decodes every text file the package reads
(:mod:`.decode`); one reader per format (:mod:`.readers`, :mod:`.csv_format`,
:mod:`.jsonl`, :mod:`.tab_json`) serves ``sanitize``, ``evaluate``, the
k-anonymity loaders and training; :func:`atomic_write` writes every output
(:mod:`.atomic`).

A sanitizer must fail closed, so this package never guesses silently:

* every problem with an input file raises :class:`InputError`, which names the
  file and, where it has one, the 1-based line (never a raw ``csv``, ``json``
  or ``codecs`` traceback);
* a malformed record raises, or, with ``on_bad_line="skip"``, is left out of
  :attr:`InputFile.records` and reported in :attr:`InputFile.skipped`;
  nothing is ever dropped unreported;
* nothing is selected by default where a wrong guess could leave text
  unsanitized: CSV/TSV needs the columns named, and each must exist; a JSONL
  field (default ``"text"``) must be a string in every object;
* :func:`write_output` checks that it got exactly one sanitized entry, with
  exactly the record's fields, per record before writing anything, and every
  file is written through :func:`atomic_write`, so a failed run never leaves
  partial output behind.

No message quotes document content: the first row of a table and the keys
of a JSON object are named only when they look like names
(:mod:`.field_names`), a record by its line, not its id.

This package only needs the standard library, so it can be imported (and
tested) on its own; the person-name lexicon of ``privacy_ner`` is loaded only
when a message asks whether a column or key name is a person's name.
"""

from .atomic import AtomicFile, atomic_path, atomic_write
from .decode import ENCODING_HINT, read_text
from .errors import InputError, JsonSyntaxError, PathLike, UndecodableError
from .jsonl import id_string, iter_json_objects, json_dumps
from .readers import FORMATS, detect_format, open_input, read_input
from .records import InputFile, Record, raiser
from .tab_json import scan_tab_json
from .writers import OutputStream, check_entry, output_name, output_target, write_json, write_jsonl, write_output

__all__ = [
    "AtomicFile",
    "OutputStream",
    "check_entry",
    "open_input",
    "output_target",
    "ENCODING_HINT",
    "FORMATS",
    "InputError",
    "InputFile",
    "JsonSyntaxError",
    "PathLike",
    "Record",
    "UndecodableError",
    "atomic_path",
    "atomic_write",
    "detect_format",
    "id_string",
    "iter_json_objects",
    "json_dumps",
    "output_name",
    "raiser",
    "read_input",
    "read_text",
    "scan_tab_json",
    "write_json",
    "write_jsonl",
    "write_output",
]
