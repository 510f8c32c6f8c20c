// How the review page shows a document: the text exactly as written (text
// nodes between <mark> elements, one per span), the sanitized text, the
// panel of one span, the residual-risk line. Offsets from the API count
// Unicode code points (Python's str); the DOM counts UTF-16 units: the
// conversion is `offsets`. Its words are the page's language's (i18n.js).

import { labelName, plural, t } from "./i18n.js";

/** UTF-16 index of each code point of `text` (null when the two coincide). */
function codeUnitIndex(text) {
  if (!/[\uD800-\uDFFF]/.test(text)) return null;
  const index = [];
  let u = 0;
  for (const ch of text) {
    index.push(u);
    u += ch.length;
  }
  index.push(u);
  return index;
}

/** Conversions between code-point offsets (the API's) and UTF-16 indices (the DOM's) in `text`. */
export function offsets(text) {
  const index = codeUnitIndex(text);
  return {
    toUnits: (cp) => (index ? index[cp] : cp),
    toPoints: (u) => {
      if (!index) return u;
      let lo = 0;
      let hi = index.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (index[mid] < u) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    },
  };
}

/** The tooltip of a span's mark: type (and its name, but in English), decision, replacement, reasons. */
export function spanTitle(span) {
  const decision = t(span.masked === false ? "decision.kept" : "decision.masked");
  const reasons = span.reasons.length ? ` — ${span.reasons.join("; ")}` : "";
  const title = t("span.title", { label: span.label, name: labelName(span.label), decision });
  return `${title}${span.replacement ? ` → ${span.replacement}` : ""}${reasons}`;
}

/** The original text into `el`: text nodes between one <mark> per span (its characters, unchanged). */
export function renderText(el, doc, selected) {
  if (doc.text === null) {
    const note = document.createElement("p");
    note.className = "spans-only";
    note.textContent = t("text.not_rebuilt");
    el.replaceChildren(note);
    return;
  }
  const nodes = [];
  const { toUnits } = offsets(doc.text);
  let pos = 0;
  doc.spans.forEach((span, i) => {
    const start = Math.max(toUnits(span.start), pos);
    const end = toUnits(span.end);
    if (end <= start) return;
    if (start > pos) nodes.push(document.createTextNode(doc.text.slice(pos, start)));
    const mark = document.createElement("mark");
    mark.className = "span";
    mark.dataset.i = String(i);
    mark.dataset.label = span.label;
    mark.dataset.decision = span.masked === false ? "kept" : "masked";
    if (span.masked === false) mark.dataset.kept = t("decision.kept"); // the badge's word
    mark.dataset.reviewed = span.reviewed ? "yes" : "no";
    mark.title = spanTitle(span);
    if (i === selected) mark.classList.add("current");
    mark.textContent = doc.text.slice(start, end);
    nodes.push(mark);
    pos = end;
  });
  if (pos < doc.text.length) nodes.push(document.createTextNode(doc.text.slice(pos)));
  el.replaceChildren(...nodes);
}

/** The sanitized text into `el`, its replacements marked where the API gives the offset map. */
export function renderSanitized(el, doc) {
  const text = doc.sanitized ?? "";
  if (!doc.offsetMap || doc.text === null) {
    el.replaceChildren(document.createTextNode(text));
    return;
  }
  const s = offsets(text);
  const o = offsets(doc.text);
  const nodes = [];
  for (const [sStart, sEnd, oStart, oEnd] of doc.offsetMap) {
    const piece = text.slice(s.toUnits(sStart), s.toUnits(sEnd));
    if (piece === doc.text.slice(o.toUnits(oStart), o.toUnits(oEnd))) {
      nodes.push(document.createTextNode(piece));
    } else {
      const ins = document.createElement("ins");
      ins.className = "repl";
      ins.textContent = piece;
      nodes.push(ins);
    }
  }
  el.replaceChildren(...nodes);
}

/** One line on what stays visible (as `textsan visualize` says it). */
export function residualLine(residual) {
  if (!residual) return t("residual.not_measured");
  if (residual.k === null || residual.k === undefined) {
    return t("residual.unknown", { error: residual.error || t("residual.no_background") });
  }
  let line = t("residual.k", { k: residual.k, n: residual.n_background });
  if (residual.narrowing?.length) {
    line += t("residual.narrowest", { terms: residual.narrowing.map(([w, n]) => `'${w}' (${n})`).join(", ") });
  }
  if (residual.unknown?.length) {
    line += t("residual.unknown_terms", { terms: residual.unknown.map((w) => `'${w}'`).join(", ") });
  }
  if (residual.min_k) {
    line += t(residual.reached ? "residual.min_k_reached" : "residual.min_k_not_reached", { min_k: residual.min_k });
  }
  return line;
}

function row(dl, name, value) {
  const dt = document.createElement("dt");
  dt.textContent = name;
  const dd = document.createElement("dd");
  dd.textContent = value;
  dl.append(dt, dd);
}

function formatRisk(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The panel of span `sel` of `doc` into `box`: label, entity, decision, reasons, risk. */
export function renderDetails(box, doc, sel) {
  const span = doc?.spans[sel];
  if (!span) {
    const p = document.createElement("p");
    p.className = "empty";
    p.textContent = t(doc?.spans.length ? "panel.empty" : "panel.no_span");
    box.replaceChildren(p);
    return;
  }
  const dl = document.createElement("dl");
  dl.id = "span-fields";
  const mentions = span.entity_id ? doc.spans.filter((s) => s.entity_id === span.entity_id).length : 1;
  row(dl, t("field.text"), span.text);
  row(dl, t("field.type"), t("details.type", { label: span.label, name: labelName(span.label) }));
  row(dl, t("field.entity"), plural("details.mentions", mentions, { entity: span.entity_id || "—" }));
  row(dl, t("field.decision"), t(span.masked === false ? "button.keep" : "button.mask"));
  row(dl, t("field.replacement"), span.replacement ?? "—");
  const how = span.review ? t("details.reviewed_how", { how: t(`review.${span.review}`) }) : t("details.yes");
  row(dl, t("field.reviewed"), span.reviewed ? how : t("details.no"));
  row(dl, t("field.source"), span.source || "—");
  row(dl, t("field.identifier"), span.identifier_type || "—");
  const position = { i: sel + 1, n: doc.spans.length, start: span.start, end: span.end };
  row(dl, t("field.position"), t("details.position", position));
  const reasonsTitle = document.createElement("h2");
  reasonsTitle.textContent = t("details.reasons");
  const reasons = document.createElement("ul");
  reasons.id = "span-reasons";
  for (const r of span.review ? [...span.reasons, `review: ${span.review}`] : span.reasons) {
    const li = document.createElement("li");
    li.textContent = r;
    reasons.append(li);
  }
  const riskTitle = document.createElement("h2");
  riskTitle.textContent = t("details.risk");
  const risk = document.createElement("dl");
  risk.id = "span-risk";
  const entries = Object.entries(span.risk || {});
  for (const [k, v] of entries) row(risk, k, formatRisk(v));
  if (!entries.length) row(risk, "—", t("details.no_measure"));
  box.replaceChildren(dl, reasonsTitle, reasons, riskTitle, risk);
}

/** The selection inside `root` (which shows `text`), as code-point offsets
 * with the white space around it left out; null when there is none. */
export function selectionOffsets(root, text) {
  const selection = window.getSelection();
  if (!selection || !selection.rangeCount || selection.isCollapsed) return null;
  const range = selection.getRangeAt(0);
  if (!root.contains(range.startContainer) || !root.contains(range.endContainer)) return null;
  // the text before the selection: text nodes only (the badges are generated content, not text)
  const before = document.createRange();
  before.selectNodeContents(root);
  before.setEnd(range.startContainer, range.startOffset);
  let start = before.toString().length;
  let end = start + range.toString().length;
  while (start < end && /\s/.test(text[start])) start += 1;
  while (end > start && /\s/.test(text[end - 1])) end -= 1;
  if (end <= start) return null;
  const { toPoints } = offsets(text);
  return [toPoints(start), toPoints(end)];
}

// ---------------------------------------------------------------- downloads

let objectUrls = []; // of the links shown, revoked when they are replaced

/** Remove the download links of the last export. */
export function clearDownloads() {
  for (const url of objectUrls) URL.revokeObjectURL(url);
  objectUrls = [];
  document.getElementById("export-links")?.remove();
  document.getElementById("export-out").hidden = true;
}

function downloadLink(name, content, type) {
  const url = URL.createObjectURL(new Blob([content], { type }));
  objectUrls.push(url);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.textContent = name;
  a.className = "download";
  return a;
}

/** One download link per [name, content, type] of `files`, and the previews of the sanitized text and training data. */
export function showDownloads(files, sanitizedPreview, training) {
  clearDownloads();
  const links = document.createElement("p");
  links.id = "export-links";
  for (const [name, content, type] of files) {
    links.append(downloadLink(name, content, type), document.createTextNode(" "));
  }
  const out = document.getElementById("export-out");
  out.before(links);
  document.getElementById("export-sanitized").textContent = sanitizedPreview;
  document.getElementById("export-training").textContent = training;
  out.hidden = false;
}
