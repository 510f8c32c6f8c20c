"""Writing a run: the sanitized copy of each input, ``report.jsonl``, the TAB
outputs (``masked_spans.json``, ``predictions.json``) and, in reversible mode,
the encrypted mapping back to the originals (``mapping.enc``)."""

from pathlib import Path
from typing import Any

from ..generalizer.keys import Secret
from ..generalizer.mapping import encrypt_mapping, mapping_segments, text_digest
from ..io import InputFile, atomic_write, write_json, write_jsonl, write_output
from ..tab import predictions_to_tab, write_masked_spans
from .files import RESERVED_OUTPUTS, RunResult

MAPPING_FILE = "mapping.enc"


class MappingWriter:
    """Collects, per output file, what restoring it needs; writes it encrypted."""

    def __init__(self) -> None:
        self.files: list[dict[str, Any]] = []

    def add_file(
        self,
        input_file: InputFile,
        output: Path,
        sanitized: list[dict[str, str]],
        originals: list[dict[str, str]],
        offset_maps: list[dict[str, Any]],
    ) -> None:
        fmt = "jsonl" if input_file.fmt == "tab" else input_file.fmt
        records = []
        for rec, san, orig, omaps in zip(input_file.records, sanitized, originals, offset_maps, strict=False):
            fields = {
                name: {
                    "digest": text_digest(san[name]),
                    "segments": mapping_segments(orig[name], san[name], omaps.get(name)),
                }
                for name in san
            }
            records.append({"index": rec.index, "doc_id": rec.doc_id, "fields": fields})
        self.files.append(
            {
                "output": output.name,
                "format": fmt,
                "fields": list(input_file.fields),
                "delimiter": input_file.delimiter,
                "records": records,
            }
        )

    def write(self, out_dir: Path, key: Secret) -> Path:
        path = Path(out_dir) / MAPPING_FILE
        with atomic_write(path, "wb") as fh:
            fh.write(encrypt_mapping({"files": self.files}, key))
        return path


def reserved_names() -> set[str]:
    """Output names a run keeps for itself (inputs with these names get "-2")."""
    return set(RESERVED_OUTPUTS)


def write_run(
    run: RunResult, out: Path, *, used: set[str] | None = None, mapping_key: Secret | None = None
) -> list[Path]:
    """Write everything of ``run`` into ``out``; returns the paths written, in
    order. ``mapping_key``: also write the encrypted mapping (reversible mode).
    Raises ``ValueError`` (with the input's path) when a sanitized copy cannot
    be written in its input's format."""
    used = reserved_names() if used is None else used
    out.mkdir(parents=True, exist_ok=True)
    mapping = MappingWriter() if mapping_key is not None else None
    written: list[Path] = []
    for fr in run.files:
        sanitized = fr.sanitized
        try:
            copies = write_output(fr.file, sanitized, out, used=used)
        except ValueError as e:
            raise ValueError(f"{fr.file.path}: {e}") from e
        written += copies
        if mapping is not None:
            originals = [r.texts for r in fr.file.records]
            mapping.add_file(fr.file, copies[0], sanitized, originals, fr.offset_maps)
    write_jsonl(out / "report.jsonl", run.report_rows)
    written.append(out / "report.jsonl")
    if mapping is not None and mapping_key is not None:
        written.append(mapping.write(out, mapping_key))
    if run.masked_spans:
        write_masked_spans(out / "masked_spans.json", run.masked_spans)
        write_json(out / "predictions.json", predictions_to_tab(run.tab_texts, run.tab_predictions))
        written += [out / "masked_spans.json", out / "predictions.json"]
    return written
