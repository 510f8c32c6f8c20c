// The page in its reader's language. Its words are data, one file per
// language (static/i18n/<code>.json: {key: text}, "{name}" placeholders,
// "key.one" / "key.other" for a count), the same files the service renders
// the page with (spacy_textsan.visualize.ui_strings); a word a file lacks is
// English's. An element's text is the word data-i18n="key", its attribute X
// the word data-i18n-X="key" (translatePage).
//
// Which language: chooseLanguage (the URL's ?ui=, the documents' language,
// the service's, the browser's, English; docs/service.md).

const DEFAULT = "en";
let code = DEFAULT;
let words = {};
let english = {};

async function fetchWords(lang) {
  const resp = await fetch(`static/i18n/${lang}.json`);
  if (!resp.ok) throw new Error(`static/i18n/${lang}.json: ${resp.status} ${resp.statusText}`);
  return resp.json();
}

/** The language the page speaks now. */
export function language() {
  return code;
}

/** The languages the page speaks: those of its selector (#ui-lang). */
export function uiLanguages() {
  return [...document.getElementById("ui-lang").options].map((o) => o.value);
}

/** The code of the first of `tags` ("fr", "fr-CH", null...) among `languages`; null when none is. */
export function pick(languages, ...tags) {
  for (const tag of tags) {
    const primary = typeof tag === "string" ? tag.trim().toLowerCase().split(/[-_]/)[0] : "";
    if (primary && languages.includes(primary)) return primary;
  }
  return null;
}

/**
 * The page's language when it opens, first that applies: the URL's ?ui=
 * (pinned: nothing changes it but the reader), the service's language (the
 * server's data-service-lang), the browser's (navigator.languages), English.
 */
export function chooseLanguage(languages = uiLanguages()) {
  const asked = pick(languages, new URLSearchParams(window.location.search).get("ui"));
  if (asked) return { lang: asked, pinned: true };
  const browser = navigator.languages?.length ? navigator.languages : [navigator.language];
  const lang = pick(languages, document.documentElement.dataset.serviceLang, ...browser) ?? DEFAULT;
  return { lang, pinned: false };
}

/**
 * The documents' language of a run read back (the "language" of its
 * report.jsonl lines: textsan sanitize --lang), the most frequent one the
 * page speaks; null when the lines say none.
 */
export function languageOfRun(reportJsonl, languages = uiLanguages()) {
  const counts = new Map();
  for (const line of reportJsonl.split(/\r?\n/)) {
    if (!line.includes('"language"')) continue;
    try {
      const lang = pick(languages, JSON.parse(line).language);
      if (lang) counts.set(lang, (counts.get(lang) || 0) + 1);
    } catch {
      /* not JSON: the service names the line */
    }
  }
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  return ranked.length ? ranked[0][0] : null;
}

/** Speak `lang`: read its words (and English's, the fallback), set <html lang> and the selector, translate the page. */
export async function useLanguage(lang) {
  if (!Object.keys(english).length) english = await fetchWords(DEFAULT);
  words = lang === DEFAULT ? english : await fetchWords(lang);
  code = lang;
  document.documentElement.lang = lang;
  document.getElementById("ui-lang").value = lang;
  translatePage();
}

/** The word `key` with its placeholders filled from `values` (the key itself when no file has it). */
export function t(key, values = {}) {
  const template = words[key] ?? english[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m));
}

/** The word `key` for a count `n`: key.one, key.other... by the language's plural rules (CLDR). */
export function plural(key, n, values = {}) {
  const form = `${key}.${new Intl.PluralRules(code).select(n)}`;
  return t(form in words || form in english ? form : `${key}.other`, { n, ...values });
}

/** The name of a span label in the page's language ("lieu" for LOC); the label itself when none is known. */
export function labelName(label) {
  const key = `label.${label}`;
  return words[key] ?? english[key] ?? label;
}

/** The words of the elements under `root` that name one (data-i18n, data-i18n-X). */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("*")) {
    for (const attr of [...el.attributes]) {
      if (attr.name.startsWith("data-i18n-")) el.setAttribute(attr.name.slice("data-i18n-".length), t(attr.value));
    }
  }
}
