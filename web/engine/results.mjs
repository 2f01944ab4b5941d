// What a search result shows a reader, the same in the page, the element and
// the CLI: where the query's words are in a passage (highlightSpans), a
// short excerpt around them with the words marked, and results grouped by
// the page they link to (a site's sections under their page).

const fold = (s) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const isWord = (c) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
// Characters of passage an excerpt shows around its first marked word.
const EXCERPT_CHARS = 240;

// [start, end) spans of the query's words in text, case- and
// accent-insensitively: whole words for alphabetic scripts, any occurrence
// for CJK; sorted, not overlapping. Offsets are into the raw text (not an
// escaped copy), so a mark can never split an entity.
export function highlightSpans(text, query) {
  const folded = fold(text);
  if (folded.length !== text.length) return []; // folding changed offsets: show it plain
  const words = [...new Set(fold(query).match(/\p{Script=Han}{2,}|[\p{L}\p{N}]{3,}/gu) ?? [])];
  const marks = [];
  for (const w of words) {
    const cjk = /\p{Script=Han}/u.test(w);
    for (let i = folded.indexOf(w); i >= 0; i = folded.indexOf(w, i + 1)) {
      if (cjk || (!isWord(folded[i - 1]) && !isWord(folded[i + w.length]))) marks.push([i, i + w.length]);
    }
  }
  marks.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out = [];
  for (const m of marks) if (!out.length || m[0] >= out[out.length - 1][1]) out.push(m);
  return out;
}

const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

// About EXCERPT_CHARS of the passage, from a little before its first marked
// word: { parts: [{ text, mark }], before, after } (before/after: cut there).
export function excerpt(text, query, chars = EXCERPT_CHARS) {
  const flat = text.replace(/\s+/g, ' ').trim();
  const spans = highlightSpans(flat, query);
  let from = spans.length ? Math.max(0, spans[0][0] - Math.floor(chars / 4)) : 0;
  if (from > 0) from = flat.indexOf(' ', from) + 1 || from;  // start on a word
  const to = Math.min(flat.length, from + chars);
  const parts = [];
  let at = from;
  for (const [a, b] of spans) {
    if (a < from || b > to) continue;
    parts.push({ text: flat.slice(at, a), mark: false }, { text: flat.slice(a, b), mark: true });
    at = b;
  }
  parts.push({ text: flat.slice(at, to), mark: false });
  return { parts: parts.filter((p) => p.text), before: from > 0, after: to < flat.length };
}

// The excerpt as HTML: the text escaped, the query's words in <mark>, "…" where cut.
export function excerptHtml(text, query, chars = EXCERPT_CHARS) {
  const e = excerpt(text, query, chars);
  const body = e.parts.map((p) => (p.mark ? `<mark>${escapeHtml(p.text)}</mark>` : escapeHtml(p.text))).join('');
  return `${e.before ? '…' : ''}${body}${e.after ? '…' : ''}`;
}

// A result's page: its source up to the anchor, for sources that are site
// URLs ("/guide/#install"); null for a plain file name.
export const pageOf = (source) => (typeof source === 'string' && source.startsWith('/') ? source.replace(/#.*$/, '') : null);

// A passage's page fields as a reader's result shows them: { metadata:
// { key: value }, filters: { key: [values] } } (a site's data-vesper-meta
// and data-vesper-filter); each omitted when empty.
export function fieldsOf(result) {
  const metadata = {}, filters = {};
  for (const f of result.fields ?? []) {
    if (f.filter) (filters[f.key] ??= []).push(f.value);
    else metadata[f.key] ??= f.value;
  }
  return { ...(Object.keys(metadata).length ? { metadata } : {}), ...(Object.keys(filters).length ? { filters } : {}) };
}

// "key:value" items (the CLI's --filter, the element's filter attribute) as
// search filters { key: [values] }, and the items that are not key:value.
export function filtersFrom(items) {
  const filters = {}, malformed = [];
  for (const item of items) {
    const at = item.indexOf(':');
    if (at <= 0) malformed.push(item);
    else (filters[item.slice(0, at).trim()] ??= []).push(item.slice(at + 1).trim());
  }
  return { filters: Object.keys(filters).length ? filters : null, malformed };
}

// Results (best first) grouped by page, in the order of each page's best:
// [{ url, title, score, excerpt, metadata?, filters?, subResults: [{ id, url, title, score, excerpt }] }].
// A result that is not from a site stays a group of its own with url null.
export function groupByPage(results, query) {
  const groups = new Map();
  for (const r of results) {
    const page = pageOf(r.source);
    const entry = { id: r.id, url: page === null ? null : r.source, title: r.title, score: r.score, excerpt: excerptHtml(r.text, query) };
    const key = page ?? `\0${r.id}`;
    if (!groups.has(key)) groups.set(key, { ...entry, url: page, pageTitle: r.title[0] ?? '', ...fieldsOf(r), subResults: [] });
    groups.get(key).subResults.push(entry);
  }
  return [...groups.values()].map(({ pageTitle, id, ...g }) => ({ ...g, title: pageTitle || g.title.join(' › ') }));
}
