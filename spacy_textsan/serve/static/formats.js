// Reading the documents of an uploaded file in the browser: TXT (one
// document), CSV/TSV (a header row; the reviewer picks the column), JSONL
// (one object a line; the "text" field unless the reviewer picks another)
// and TAB JSON (a list of {"doc_id", "text", ...}). Parsing here keeps the
// service's API to text in, spans out; the texts reach the server as they
// are in the file (line breaks included).

/** The file's format from its name: "txt", "csv", "tsv", "jsonl" or "json". */
export function formatOf(name) {
  const ext = (name.split(".").pop() || "").toLowerCase();
  if (ext === "csv" || ext === "tsv") return ext;
  if (ext === "jsonl" || ext === "ndjson") return "jsonl";
  if (ext === "json") return "json";
  return "txt";
}

/** The delimiter of a CSV text: the one of , ; TAB | that the header line has most of. */
export function sniffDelimiter(text) {
  const firstLine = text.split(/\r\n|\r|\n/, 1)[0];
  let best = ",";
  let bestCount = 0;
  for (const d of [",", ";", "\t", "|"]) {
    const count = firstLine.split(d).length - 1;
    if (count > bestCount) {
      best = d;
      bestCount = count;
    }
  }
  return best;
}

/** Rows of a CSV text (RFC 4180: quoted fields may hold delimiters, quotes and line breaks). */
export function parseCsv(text, delimiter) {
  const rows = [];
  let row = [];
  let field = "";
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else {
        field += c;
      }
      i += 1;
      continue;
    }
    if (c === '"' && field === "") {
      quoted = true;
    } else if (c === delimiter) {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      if (c === "\r" && text[i + 1] === "\n") i += 1;
    } else {
      field += c;
    }
    i += 1;
  }
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ""));
}

/**
 * A table read from an upload: {fields, records, defaultField, idOf(record, n)}.
 * TXT and TAB JSON give one field, "text"; CSV its header, JSONL the string
 * fields of its records.
 */
export function readTable(name, content) {
  const text = content.replace(/^\uFEFF/, "");
  const fmt = formatOf(name);
  const stem = name.replace(/\.[^.]*$/, "");
  if (fmt === "txt") {
    return { fmt, fields: ["text"], records: [{ text }], defaultField: "text", idOf: () => stem };
  }
  if (fmt === "csv" || fmt === "tsv") {
    const rows = parseCsv(text, fmt === "tsv" ? "\t" : sniffDelimiter(text));
    if (!rows.length) throw new Error(`${name}: no header row`);
    const [header, ...body] = rows;
    const records = body.map((r) => Object.fromEntries(header.map((h, j) => [h, r[j] ?? ""])));
    return { fmt, fields: header, records, defaultField: guessField(header, records), idOf: idFrom(stem) };
  }
  if (fmt === "jsonl") {
    const records = [];
    text.split(/\r\n|\n/).forEach((line, n) => {
      if (!line.trim()) return;
      let obj;
      try {
        obj = JSON.parse(line);
      } catch (e) {
        throw new Error(`${name}: line ${n + 1} is not JSON (${e.message})`);
      }
      records.push(typeof obj === "string" ? { text: obj } : obj);
    });
    const fields = [...new Set(records.flatMap((r) => Object.keys(r).filter((k) => typeof r[k] === "string")))];
    return { fmt, fields, records, defaultField: guessField(fields, records), idOf: idFrom(stem) };
  }
  let data;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`${name}: not JSON (${e.message})`);
  }
  const list = Array.isArray(data) ? data : [data];
  const records = list.map((d) => (typeof d === "string" ? { text: d } : d));
  if (!records.every((r) => r && typeof r.text === "string")) {
    throw new Error(`${name}: a TAB JSON file is a list of documents with a "text"`);
  }
  return { fmt, fields: ["text"], records, defaultField: "text", idOf: idFrom(stem) };
}

/** The documents of a table for one field: [{doc_id, title, text}] (records without it are left out). */
export function documentsOf(table, field) {
  const docs = [];
  table.records.forEach((record, n) => {
    const text = record[field];
    if (typeof text !== "string" || !text.length) return;
    const docId = table.idOf(record, n);
    docs.push({ doc_id: docId, title: table.fields.length > 1 ? `${docId} (${field})` : docId, text });
  });
  return docs;
}

function idFrom(stem) {
  return (record, n) => {
    const id = record.doc_id ?? record.id;
    return id === undefined || id === null || id === "" ? `${stem}-${n + 1}` : String(id);
  };
}

/** "text" if there is such a field, else the field with the longest values. */
function guessField(fields, records) {
  if (fields.includes("text")) return "text";
  let best = fields[0];
  let bestLength = -1;
  for (const f of fields) {
    const total = records.reduce((sum, r) => sum + (typeof r[f] === "string" ? r[f].length : 0), 0);
    if (total > bestLength) {
      best = f;
      bestLength = total;
    }
  }
  return best;
}
