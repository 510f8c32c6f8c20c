// How the review page shows a document: the text exactly as written (text
// nodes between <mark> elements, one per span), the sanitized text, the
// panel of one span, the residual-risk line. Offsets from the API count
// Unicode code points (Python's str); the DOM counts UTF-16 units: the
// conversion is `offsets`.

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

/** The tooltip of a span's mark: type, decision, replacement, reasons. */
export function spanTitle(span) {
  const decision = span.masked === false ? "kept" : "masked";
  const reasons = span.reasons.length ? ` — ${span.reasons.join("; ")}` : "";
  return `${span.label} ${decision}${span.replacement ? ` → ${span.replacement}` : ""}${reasons}`;
}

/** The original text into `el`: text nodes between one <mark> per span (its characters, unchanged). */
export function renderText(el, doc, selected) {
  if (doc.text === null) {
    const note = document.createElement("p");
    note.className = "spans-only";
    note.textContent = "The text could not be rebuilt from the report: its spans are listed one by one (n / p).";
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
  if (!residual) return "residual risk: not measured (no residual_risk in the pipeline)";
  if (residual.k === null || residual.k === undefined) {
    return `residual risk: unknown (${residual.error || "no background"})`;
  }
  let line = `residual risk: k = ${residual.k} of ${residual.n_background} background records`;
  if (residual.narrowing?.length) {
    line += `; narrowest visible: ${residual.narrowing.map(([t, n]) => `'${t}' (${n})`).join(", ")}`;
  }
  if (residual.unknown?.length) {
    line += `; unknown to the background: ${residual.unknown.map((t) => `'${t}'`).join(", ")}`;
  }
  if (residual.min_k) line += `; min_k ${residual.min_k} ${residual.reached ? "reached" : "NOT reached"}`;
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
    p.textContent = doc?.spans.length ? "Click a span, or press n." : "No span in this document.";
    box.replaceChildren(p);
    return;
  }
  const dl = document.createElement("dl");
  dl.id = "span-fields";
  const mentions = span.entity_id ? doc.spans.filter((s) => s.entity_id === span.entity_id).length : 1;
  row(dl, "text", span.text);
  row(dl, "type", span.label);
  row(dl, "entity", `${span.entity_id || "—"} (${mentions} mention${mentions === 1 ? "" : "s"})`);
  row(dl, "decision", span.masked === false ? "keep" : "mask");
  row(dl, "replacement", span.replacement ?? "—");
  row(dl, "reviewed", span.reviewed ? `yes${span.review ? ` (${span.review})` : ""}` : "no");
  row(dl, "source", span.source || "—");
  row(dl, "identifier", span.identifier_type || "—");
  row(dl, "position", `${sel + 1} of ${doc.spans.length}: characters ${span.start}–${span.end}`);
  const reasonsTitle = document.createElement("h2");
  reasonsTitle.textContent = "Reasons";
  const reasons = document.createElement("ul");
  reasons.id = "span-reasons";
  for (const r of span.review ? [...span.reasons, `review: ${span.review}`] : span.reasons) {
    const li = document.createElement("li");
    li.textContent = r;
    reasons.append(li);
  }
  const riskTitle = document.createElement("h2");
  riskTitle.textContent = "Risk";
  const risk = document.createElement("dl");
  risk.id = "span-risk";
  const entries = Object.entries(span.risk || {});
  for (const [k, v] of entries) row(risk, k, formatRisk(v));
  if (!entries.length) row(risk, "—", "no measure");
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
