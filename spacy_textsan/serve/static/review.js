// The review page of `textsan serve`: load documents, review the spans the
// pipeline found (mask / keep per entity, add a missed span, remove a wrong
// one, change the strategy), see the sanitized text and the residual risk
// follow, and export the reviewed document and its training data.
//
// It talks to the service's JSON API only (api/sanitize, api/render,
// api/report, api/export); view.js draws the document (exactly as written,
// never a re-joined token stream), formats.js reads uploaded files, i18n.js
// gives the page's words in its reader's language.

import { documentsOf, readTable } from "./formats.js";
import { chooseLanguage, language, languageOfRun, plural, t, useLanguage } from "./i18n.js";
import {
  clearDownloads,
  renderDetails,
  renderSanitized,
  renderText,
  residualLine,
  selectionOffsets,
  showDownloads,
} from "./view.js";

const $ = (id) => document.getElementById(id);

const state = {
  docs: [], // {doc_id, title, text, spans, sanitized, offsetMap, residual, status, errors, analyzed, seq}
  cur: -1, // index of the document shown
  sel: -1, // index of the selected span of that document
  table: null, // the parsed upload whose field the reviewer may change
  tableName: "",
  added: 0, // entity ids of added spans: "added-1", "added-2", ...
  uiPinned: false, // the page's language was asked for (?ui=, the selector): the documents' does not change it
};

// ---------------------------------------------------------------- API

/** The status line; its data-state (busy, ok, error) tells a script driving the page when an update is done. */
function setStatus(message, error = false, busy = false) {
  const el = $("status");
  delete el.dataset.i18n; // a message of its own now: a change of language leaves it
  el.textContent = message;
  el.classList.toggle("error", error);
  el.dataset.state = error ? "error" : busy ? "busy" : "ok";
}

async function api(path, body) {
  const headers = { "Content-Type": "application/json" };
  const token = $("token").value.trim();
  if (token) headers.Authorization = `Bearer ${token}`;
  const resp = await fetch(`api/${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  if (resp.status === 401 || resp.status === 403) {
    $("token-box").hidden = false;
    throw new Error(t("status.token_needed"));
  }
  if (!resp.ok) {
    let detail = `${resp.status} ${resp.statusText}`;
    try {
      const payload = await resp.json();
      if (payload.detail !== undefined) {
        detail = typeof payload.detail === "string" ? payload.detail : JSON.stringify(payload.detail);
      }
    } catch {
      /* not JSON: keep the status line */
    }
    throw new Error(`${path}: ${detail}`);
  }
  return resp.json();
}

function strategy() {
  return $("strategy").value || null;
}

/** The spans as the API takes them (a reviewer's decisions). */
function decisions(doc) {
  return doc.spans.map((s) => ({
    start: s.start,
    end: s.end,
    label: s.label,
    entity_id: s.entity_id ?? null,
    masked: s.masked !== false,
    identifier_type: s.identifier_type ?? null,
    ...(s.review === "added" ? { source: "review" } : {}),
  }));
}

function fromApi(span) {
  return { ...span, reasons: span.reasons || [], risk: span.risk || {}, reviewed: false, review: null };
}

function applyResult(doc, result, replaceSpans) {
  if (replaceSpans) {
    doc.spans = result.spans.map(fromApi);
  } else {
    const byRange = new Map(result.spans.map((s) => [`${s.start}:${s.end}`, s]));
    for (const span of doc.spans) {
      const r = byRange.get(`${span.start}:${span.end}`);
      if (r) {
        span.replacement = r.replacement;
        if (!span.entity_id && r.entity_id) span.entity_id = r.entity_id;
      }
    }
  }
  doc.sanitized = result.sanitized;
  doc.offsetMap = result.offset_map || null;
  doc.residual = result.residual_risk ?? null;
  doc.status = result.status;
  doc.errors = result.errors || [];
  doc.strategy = strategy();
}

async function analyze(doc) {
  if (doc.analyzed) return;
  const { results } = await api("sanitize", { texts: [doc.text], strategy: strategy() });
  applyResult(doc, results[0], true);
  doc.analyzed = true;
}

/** Re-render `doc` with the reviewer's decisions; only the latest answer is applied. */
async function rerender(doc) {
  if (doc.text === null) return;
  const seq = (doc.seq = (doc.seq || 0) + 1);
  setStatus(t("status.updating"), false, true);
  try {
    const result = await api("render", { text: doc.text, spans: decisions(doc), strategy: strategy() });
    if (seq !== doc.seq) return;
    applyResult(doc, result, false);
    setStatus(t("status.up_to_date"));
  } catch (e) {
    if (seq === doc.seq) setStatus(e.message, true);
  }
  if (doc === current()) {
    showText(doc);
    showSanitized(doc);
    showDetails();
  }
  showBar(doc);
}

// ---------------------------------------------------------------- loading

function current() {
  return state.docs[state.cur] ?? null;
}

function newDoc(d) {
  return {
    doc_id: d.doc_id,
    title: d.title || d.doc_id,
    text: d.text ?? null,
    spans: (d.spans || []).map(fromApi),
    analyzed: Boolean(d.spans),
    sanitized: null,
    offsetMap: null,
    residual: null,
    status: d.status || null,
    errors: [],
  };
}

async function loadDocuments(list, message) {
  state.docs = list.map(newDoc);
  state.cur = -1;
  clearDownloads();
  const select = $("doc-select");
  select.replaceChildren(
    ...state.docs.map((d, i) => {
      const option = document.createElement("option");
      option.value = String(i);
      option.textContent = d.title;
      return option;
    }),
  );
  $("doc-bar").hidden = false;
  $("workspace").hidden = false;
  $("export").hidden = false;
  setStatus(message);
  if (state.docs.length) await showDocument(0);
}

async function showDocument(i) {
  state.cur = i;
  state.sel = -1;
  $("doc-select").value = String(i);
  const doc = current();
  try {
    if (!doc.analyzed) {
      setStatus(t("status.sanitizing", { title: doc.title }), false, true);
      await analyze(doc);
      setStatus(plural("status.to_review", doc.spans.length, { title: doc.title }));
    } else if (doc.text !== null && (doc.sanitized === null || doc.strategy !== strategy())) {
      await rerender(doc);
    }
  } catch (e) {
    setStatus(e.message, true);
  }
  if (doc !== current()) return;
  showText(doc);
  showSanitized(doc);
  showBar(doc);
  showDetails();
  $("doc").focus({ preventScroll: true }); // the review keys work at once
}

async function loadFile(file) {
  const content = await file.text();
  state.table = readTable(file.name, content);
  state.tableName = file.name;
  const box = $("field-box");
  const field = $("field");
  box.hidden = state.table.fields.length < 2;
  field.replaceChildren(
    ...state.table.fields.map((f) => {
      const option = document.createElement("option");
      option.value = f;
      option.textContent = f;
      return option;
    }),
  );
  field.value = state.table.defaultField;
  await loadTableField();
}

async function loadTableField() {
  const field = $("field").value;
  const docs = documentsOf(state.table, field);
  if (!docs.length) {
    setStatus(t("status.no_text", { file: state.tableName, field: JSON.stringify(field) }), true);
    return;
  }
  const loaded = plural("status.documents", docs.length, { file: state.tableName, field: JSON.stringify(field) });
  await loadDocuments(docs, loaded);
}

/** A run of `textsan sanitize --out OUT`: the report.jsonl of OUT.report, and
 * the sanitized files of OUT (optional) from which the service rebuilds the texts. */
async function loadRun() {
  const reportFiles = [...$("folder").files];
  const report = reportFiles.find((f) => f.name === "report.jsonl");
  if (!report) {
    setStatus(t("status.no_report"), true);
    return;
  }
  const reportJsonl = await report.text();
  const sanitized = {};
  for (const f of $("outputs").files) {
    if (f.name === "report.jsonl" || f.name.startsWith(".") || f.size > 64 * 1024 * 1024) continue;
    const rel = (f.webkitRelativePath || f.name).split("/").slice(1).join("/") || f.name;
    sanitized[rel] = await f.text();
  }
  const { documents } = await api("report", {
    report_jsonl: reportJsonl,
    sanitized: Object.keys(sanitized).length ? sanitized : null,
  });
  const docs = documents.map((d) => ({
    doc_id: d.doc_id,
    title: `${d.file.split(/[\\/]/).pop()} ${d.doc_id}${d.field && d.field !== "text" ? ` (${d.field})` : ""}`,
    text: d.text,
    spans: d.spans || [],
    status: d.status,
  }));
  const rebuilt = docs.filter((d) => d.text !== null).length;
  const runLanguage = languageOfRun(reportJsonl);
  if (runLanguage && !state.uiPinned && runLanguage !== language()) await useLanguage(runLanguage);
  await loadDocuments(docs, plural("status.report", docs.length, { rebuilt }));
}

// ---------------------------------------------------------------- showing

function showText(doc) {
  renderText($("doc"), doc, state.sel);
}

function showSanitized(doc) {
  renderSanitized($("sanitized"), doc);
}

function showDetails() {
  renderDetails($("details"), current(), state.sel);
}

function showBar(doc) {
  if (doc !== current()) return;
  const open = doc.spans.filter((s) => !s.reviewed).length;
  const counter = $("counter");
  const total = doc.spans.length;
  counter.textContent = open ? plural("counter.open", open, { total }) : plural("counter.done", total);
  counter.classList.toggle("done", open === 0);
  $("residual").textContent = doc.text === null ? "" : residualLine(doc.residual);
  const errors = doc.errors?.length ? `: ${doc.errors.join("; ")}` : "";
  $("doc-status").textContent = doc.status ? `${t("bar.status", { status: doc.status })}${errors}` : "";
}

function select(i, scroll = true) {
  const doc = current();
  if (!doc || !doc.spans.length) return;
  state.sel = Math.max(0, Math.min(i, doc.spans.length - 1));
  for (const m of $("doc").querySelectorAll("mark.current")) m.classList.remove("current");
  const mark = $("doc").querySelector(`mark[data-i="${state.sel}"]`);
  if (mark) {
    mark.classList.add("current");
    if (scroll) mark.scrollIntoView({ block: "nearest" });
  }
  showDetails();
}

// ---------------------------------------------------------------- review actions

function refresh(doc) {
  showText(doc);
  showDetails();
  showBar(doc);
  return rerender(doc);
}

/** Mask or keep the selected span and every mention of its entity. */
function decide(masked) {
  const doc = current();
  const span = doc?.spans[state.sel];
  if (!span) return;
  for (const s of doc.spans) {
    if (s === span || (span.entity_id && s.entity_id === span.entity_id)) {
      s.masked = masked;
      s.reviewed = true;
      s.review = masked ? "masked" : "kept";
    }
  }
  return refresh(doc);
}

function markReviewed() {
  const doc = current();
  const span = doc?.spans[state.sel];
  if (!span) return;
  span.reviewed = true;
  showText(doc);
  showDetails();
  showBar(doc);
}

function removeSpan() {
  const doc = current();
  if (!doc?.spans[state.sel] || doc.text === null) return;
  doc.spans.splice(state.sel, 1);
  state.sel = Math.min(state.sel, doc.spans.length - 1);
  return refresh(doc);
}

function addSpan() {
  const doc = current();
  if (!doc || doc.text === null) return;
  const range = selectionOffsets($("doc"), doc.text);
  if (!range) {
    setStatus(t("status.select_first"), true);
    return;
  }
  const label = $("add-label").value;
  const chars = [...doc.text];
  const surface = chars.slice(range[0], range[1]).join("");
  const ranges = [range];
  if ($("add-all").checked) {
    for (let i = chars.indexOf(chars[range[0]]); i !== -1; i = chars.indexOf(chars[range[0]], i + 1)) {
      const end = i + (range[1] - range[0]);
      if (i !== range[0] && chars.slice(i, end).join("") === surface) ranges.push([i, end]);
    }
  }
  const same = doc.spans.find((s) => s.label === label && s.text.toLowerCase() === surface.toLowerCase());
  const entityId = same?.entity_id || `added-${++state.added}`;
  let replaced = 0;
  for (const [start, end] of ranges) {
    const before = doc.spans.length;
    doc.spans = doc.spans.filter((s) => s.end <= start || s.start >= end);
    replaced += before - doc.spans.length;
    doc.spans.push({
      start,
      end,
      text: surface,
      label,
      entity_id: entityId,
      masked: true,
      replacement: null,
      reasons: [],
      risk: {},
      source: "review",
      identifier_type: null,
      reviewed: true,
      review: "added",
    });
  }
  doc.spans.sort((a, b) => a.start - b.start || a.end - b.end);
  state.sel = doc.spans.findIndex((s) => s.start === range[0] && s.end === range[1]);
  window.getSelection().removeAllRanges();
  const note = replaced ? plural("status.replaces", replaced) : "";
  setStatus(plural("status.added", ranges.length, { label, note }));
  return refresh(doc);
}

// ---------------------------------------------------------------- export

function safeName(name) {
  return name.replace(/[^\w.-]+/g, "_").replace(/^[._]+/, "") || "document";
}

async function exportDoc(doc) {
  if (!doc.analyzed) await analyze(doc);
  return api("export", { text: doc.text, spans: decisions(doc), strategy: strategy(), doc_id: doc.doc_id });
}

/** " (N spans not reviewed)" when some are not. */
function unreviewedNote(docs) {
  const open = docs.reduce((n, d) => n + d.spans.filter((s) => !s.reviewed).length, 0);
  return open ? plural("status.not_reviewed", open) : "";
}

async function exportCurrent() {
  const doc = current();
  if (!doc) return;
  if (doc.text === null) {
    setStatus(t("status.cannot_export"), true);
    return;
  }
  try {
    const res = await exportDoc(doc);
    const base = safeName(doc.doc_id);
    const training = `${JSON.stringify([res.training], null, 2)}\n`;
    showDownloads(
      [
        [`${base}.sanitized.txt`, res.sanitized, "text/plain;charset=utf-8"],
        [`${base}.report.json`, `${JSON.stringify(res.report, null, 2)}\n`, "application/json"],
        [`${base}.training.json`, training, "application/json"],
      ],
      res.sanitized,
      training,
    );
    setStatus(t("status.exported", { title: doc.title, note: unreviewedNote([doc]) }));
  } catch (e) {
    setStatus(e.message, true);
  }
}

async function exportAll() {
  const docs = state.docs.filter((d) => d.text !== null);
  try {
    const sanitized = [];
    const reports = [];
    const training = [];
    for (const [n, doc] of docs.entries()) {
      setStatus(t("status.exporting", { i: n + 1, n: docs.length }), false, true);
      const res = await exportDoc(doc);
      sanitized.push(JSON.stringify({ doc_id: doc.doc_id, text: res.sanitized }));
      reports.push(JSON.stringify({ doc_id: doc.doc_id, ...res.report }));
      training.push(res.training);
    }
    const trainingFile = `${JSON.stringify(training, null, 2)}\n`;
    showDownloads(
      [
        ["sanitized.jsonl", `${sanitized.join("\n")}\n`, "application/x-ndjson"],
        ["report.jsonl", `${reports.join("\n")}\n`, "application/x-ndjson"],
        ["training.json", trainingFile, "application/json"],
      ],
      sanitized.join("\n"),
      trainingFile,
    );
    setStatus(plural("status.exported_all", docs.length, { note: unreviewedNote(docs) }));
  } catch (e) {
    setStatus(e.message, true);
  }
}

// ---------------------------------------------------------------- wiring

function nextUnreviewed() {
  const doc = current();
  if (!doc) return;
  const n = doc.spans.length;
  for (let step = 1; step <= n; step += 1) {
    const i = (Math.max(state.sel, -1) + step) % n;
    if (!doc.spans[i].reviewed) {
      select(i);
      return;
    }
  }
  setStatus(t("status.all_reviewed"));
}

const KEYS = {
  n: () => select(state.sel + 1),
  p: () => select(state.sel <= 0 ? 0 : state.sel - 1),
  m: () => decide(true),
  k: () => decide(false),
  r: () => markReviewed(),
  u: () => nextUnreviewed(),
  a: () => addSpan(),
  Delete: () => removeSpan(),
  Backspace: () => removeSpan(),
};

/** Whether keys pressed in `target` are typed text (or a choice in a list), not commands. */
function typing(target) {
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (!(target instanceof HTMLInputElement)) return false;
  return !["checkbox", "radio", "button", "submit", "reset", "file"].includes(target.type);
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (typing(event.target)) return;
  const action = KEYS[event.key];
  if (!action || !current()) return;
  event.preventDefault();
  action();
}

function guard(fn) {
  return async (...args) => {
    try {
      await fn(...args);
    } catch (e) {
      setStatus(e.message, true);
    }
  };
}

// ---------------------------------------------------------------- language

/** The reader picked a language: speak it, keep it in the URL (?ui=), draw the document again. */
async function pickLanguage(lang) {
  state.uiPinned = true;
  await useLanguage(lang);
  const url = new URL(window.location.href);
  url.searchParams.set("ui", lang);
  window.history.replaceState(null, "", url);
  const doc = current();
  if (doc) {
    showText(doc);
    showSanitized(doc);
    showBar(doc);
    showDetails();
  }
}

async function startLanguage() {
  const { lang, pinned } = chooseLanguage();
  state.uiPinned = pinned;
  try {
    await useLanguage(lang);
  } catch (e) {
    setStatus(e.message, true); // the page's words stay those the service wrote
  }
}

function init() {
  $("review-paste").addEventListener(
    "click",
    guard(() => {
      const text = $("paste").value;
      if (!text.trim()) throw new Error(t("status.paste_first"));
      const title = t("doc.pasted");
      return loadDocuments([{ doc_id: "pasted", title, text }], title);
    }),
  );
  $("ui-lang").addEventListener(
    "change",
    guard((event) => pickLanguage(event.target.value)),
  );
  $("file").addEventListener(
    "change",
    guard(async (event) => {
      const [file] = event.target.files;
      if (file) await loadFile(file);
    }),
  );
  $("field").addEventListener("change", guard(loadTableField));
  const run = guard(async () => {
    if ($("folder").files.length) await loadRun();
  });
  $("folder").addEventListener("change", run);
  $("outputs").addEventListener("change", run);
  $("strategy").addEventListener(
    "change",
    guard(async () => {
      if (!current()) return;
      $("doc").focus({ preventScroll: true });
      await rerender(current());
    }),
  );
  $("doc-select").addEventListener(
    "change",
    guard((event) => showDocument(Number(event.target.value))),
  );
  $("doc").addEventListener("click", (event) => {
    const mark = event.target instanceof Element ? event.target.closest("mark.span") : null;
    if (mark && window.getSelection().isCollapsed) select(Number(mark.dataset.i), false);
  });
  $("btn-prev").addEventListener("click", KEYS.p);
  $("btn-next").addEventListener("click", KEYS.n);
  $("btn-mask").addEventListener("click", guard(KEYS.m));
  $("btn-keep").addEventListener("click", guard(KEYS.k));
  $("btn-remove").addEventListener("click", guard(KEYS.Delete));
  // keep the document's selection when the button takes the click
  $("btn-add").addEventListener("mousedown", (event) => event.preventDefault());
  $("btn-add").addEventListener("click", guard(KEYS.a));
  $("btn-export").addEventListener("click", guard(exportCurrent));
  $("btn-export-all").addEventListener("click", guard(exportAll));
  document.addEventListener("keydown", onKey);
}

init();
await startLanguage();
document.body.dataset.ready = "yes";
