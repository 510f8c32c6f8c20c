"""The requests and answers of the review API (``/sanitize``, ``/api/render``,
``/api/export``, ``/api/report``) as pydantic models: the requests are
validated by them, the answers described by them (in ``/openapi.json``)."""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

from .fields import Document, Key, Language, MaskFormat, Name, RequestModel, Strategy

#: ``on_error`` of a request: as ``textsan serve --on-error`` (``fail`` would answer 500 for a failing document).
OnError = Literal["mask-all", "skip"]
#: ``extensions.IDENTIFIER_TYPES``
IdentifierType = Literal["DIRECT", "QUASI", "NO_MASK", "UNKNOWN"]
#: A document's status (``run.results.report_status``), and ``skipped``: an input row a report lists.
Status = Literal["ok", "degraded", "fallback", "failed"]
ReportStatus = Literal["ok", "degraded", "fallback", "failed", "skipped"]

INCLUDE_ORIGINALS = (
    "answer the text and each span's original string (the review page needs them); false: an answer "
    "without any original string: no text, spans without their text, kb_id and kb_chain, reasons and "
    "errors reduced to their kind, residual risk reduced to its numbers"
)


# -- requests --------------------------------------------------------------------------


class SanitizeRequest(RequestModel):
    """One text (``text``) or several (``texts``), with the options of ``textsan sanitize``."""

    model_config = ConfigDict(json_schema_extra={"oneOf": [{"required": ["text"]}, {"required": ["texts"]}]})

    texts: (
        Annotated[list[Document], Field(min_length=1, json_schema_extra={"x-textsan-limit": "max_texts"})]
        | SkipJsonSchema[None]
    ) = None
    text: Document | SkipJsonSchema[None] = None
    strategy: Strategy | None = None
    mask_format: MaskFormat | None = None
    on_error: OnError | None = Field(None, description="a document that fails: mask-all or skip")
    language: Language | None = None
    include_originals: bool = Field(True, description=INCLUDE_ORIGINALS)

    @model_validator(mode="after")
    def _one_of_text_and_texts(self) -> "SanitizeRequest":
        for name in ("text", "texts"):
            if name in self.model_fields_set and getattr(self, name) is None:
                raise ValueError(f"'{name}' is null: give it or leave it out")
        if (self.texts is None) == (self.text is None):
            raise ValueError("give either 'text' (one string) or 'texts' (a list of strings)")
        return self

    @property
    def documents(self) -> list[str]:
        return self.texts if self.texts is not None else [self.text or ""]


class SpanDecision(RequestModel):
    """A reviewer's decision on one span of the text: mask it or keep it (the
    other fields of a span record, sent back as the API answered it, are ignored)."""

    model_config = ConfigDict(extra="ignore", strict=True, allow_inf_nan=False)

    start: int = Field(ge=0)
    end: int = Field(ge=1)
    label: Key
    entity_id: Name | None = None
    masked: bool = True
    added: bool = Field(False, description="a span the reviewer added (also: source = review)")
    source: Name | None = None
    identifier_type: IdentifierType | None = Field(
        None, description="DIRECT, QUASI or NO_MASK as the pipeline typed it (kept in the training record)"
    )


class ReviewRequest(RequestModel):
    """A text and a reviewer's decisions on its spans."""

    text: Document
    spans: list[SpanDecision] = Field(description="each a non-empty range of the text: 0 <= start < end <= its length")
    strategy: Strategy | None = None
    mask_format: MaskFormat | None = None

    @field_validator("spans")
    @classmethod
    def _in_the_text(cls, spans: list[SpanDecision], info: ValidationInfo) -> list[SpanDecision]:
        text = info.data.get("text")
        if text is None:  # refused already
            return spans
        for i, s in enumerate(spans):
            if not s.start < s.end <= len(text):
                raise ValueError(f"span {i} is not a non-empty range of the text ({len(text)} characters)")
        return spans


class RenderRequest(ReviewRequest):
    include_originals: bool = Field(True, description=INCLUDE_ORIGINALS)


class ExportRequest(ReviewRequest):
    doc_id: Key = "document"


class ReportRequest(RequestModel):
    report_jsonl: str = Field(description="a report.jsonl written by textsan sanitize")
    sanitized: dict[Annotated[str, Field(max_length=1000)], str] | None = Field(
        None, description="the sanitized copies of its files: file name -> content"
    )


# -- answers ---------------------------------------------------------------------------


class SpanRecord(BaseModel):
    """A span as the pipeline decided it (a report row's record); ``text`` is its original string."""

    model_config = ConfigDict(extra="ignore", strict=True, allow_inf_nan=False)

    start: int = Field(ge=0)
    end: int = Field(ge=1)
    text: str | None
    label: str
    entity_id: str | None = None
    identifier_type: str | None = None
    source: str | None = None
    kb_id: str | None = None
    kb_chain: list[str] | None = None
    risk: dict[str, float] = {}
    info_content: float | None = None
    masked: bool | None = None
    replacement: str | None = None
    reasons: list[str] = []

    @model_validator(mode="after")
    def _a_range_of_its_text(self) -> "SpanRecord":
        if self.end <= self.start or (self.text is not None and self.end - self.start != len(self.text)):
            raise ValueError("start and end are not the range of the span's text")
        return self


class Result(BaseModel):
    """A document sanitized: the sanitized text, the spans, the residual risk,
    the status; ``offset_map`` maps the sanitized text back to the input."""

    text: str | None = Field(description="the input (null without include_originals)")
    sanitized: str
    status: Status
    spans: list[SpanRecord]
    residual_risk: dict[str, Any] | None
    errors: list[str]
    offset_map: list[list[int]] | None = Field(
        description="[sanitized start, end, input start, end] of each piece; null for a failed document"
    )


class SanitizeResponse(BaseModel):
    results: list[Result]


class ExportResponse(BaseModel):
    sanitized: str
    report: Result
    training: dict[str, Any] = Field(description="the reviewed document as a TAB JSON document")


class ReportRow(BaseModel):
    """The fields of a ``report.jsonl`` line that reading it back uses (the others are ignored)."""

    model_config = ConfigDict(extra="ignore", strict=True, allow_inf_nan=False)

    file: str = ""
    doc_id: str | int | None = None
    index: int | None = Field(None, ge=0)
    line: int | None = Field(None, ge=0)
    field: str = ""
    status: ReportStatus = "ok"
    spans: list[SpanRecord] = []


class ReportDocument(BaseModel):
    file: str
    doc_id: str
    field: str
    text: str | None = Field(description="rebuilt from the sanitized copy of its file; null without it")
    spans: list[SpanRecord]
    status: ReportStatus


class ReportResponse(BaseModel):
    documents: list[ReportDocument]


class Health(BaseModel):
    status: Literal["ok"]
    pipeline: str
    version: str
