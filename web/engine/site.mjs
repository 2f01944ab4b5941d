// A built static site (HTML) or a Markdown folder as documents to store:
// one document per section (a heading with an anchor, up to the next one),
// named by its URL relative to the site root with the anchor ("/guide/
// install.html#linux"), its text led by the heading trail so the chunker
// gives each passage its titles. Search results then carry the URL a reader
// clicks, and a page's sections group under it.
//
// HTML: the page's title and <html lang>; the indexed region is the elements
// marked data-vesper-body (else <main>, else <body>); left out are script,
// style, nav, header, footer, form, template, svg, noscript and anything
// marked data-vesper-ignore. Headings h1-h6 start sections; those with an id
// are linked to. Anywhere on the page, data-vesper-meta and
// data-vesper-filter give the page fields ("key:value", "key[attr]" for an
// attribute of the element, "key" for its text; several separated by
// commas): metadata shown with its results, filters that narrow a search. Markdown: front matter's title and lang; headings start
// sections, linked by their {#id} or else a GitHub-style slug; the page URL
// comes from a template ("/{path}/" by default: docs/intro.md -> /docs/intro/);
// front matter `meta:` and `filters:` maps (a value or a [list] per key) are
// the page's fields, as data-vesper-meta / -filter are an HTML page's.
//
//   const docs = siteDocuments([{ path: 'guide/install.html', text }], { urlTemplate });
//   await engine.store('site', docs);

const SKIPPED = new Set(['script', 'style', 'nav', 'header', 'footer', 'form', 'template', 'svg', 'noscript', 'iframe', 'button', 'select', 'textarea']);
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
// Elements after which text continues on a new line (the chunker's paragraphs).
const BLOCK = new Set(['p', 'div', 'section', 'article', 'main', 'aside', 'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'table', 'tr', 'td', 'th',
  'blockquote', 'pre', 'figure', 'figcaption', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'details', 'summary']);
const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', mdash: '—', ndash: '–', hellip: '…', copy: '©', laquo: '«', raquo: '»', rsquo: '’', lsquo: '‘', ldquo: '“', rdquo: '”' };
export const DEFAULT_URL_TEMPLATE = '/{path}/';

export function decodeEntities(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e) => {
    if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? m;
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\uFFFD';
  });
}

function attributes(source) {
  const out = {};
  for (const m of source.matchAll(/([^\s"'>\/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
    out[m[1].toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return out;
}

// The tags and text of an HTML document, in order: { tag, close, attrs } or { text }.
function* tokens(html) {
  const re = /<!--[^]*?-->|<!\[CDATA\[[^]*?\]\]>|<![^>]*>|<\/?([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>|[^<]+|</g;
  let m;
  while ((m = re.exec(html))) {
    if (m[0][0] !== '<' || m[0] === '<') {
      yield { text: m[0] };
    } else if (m[1]) {
      const tag = m[1].toLowerCase();
      yield { tag, close: m[0][1] === '/', attrs: attributes(m[2]), selfClosing: /\/\s*$/.test(m[2]) };
      // The raw text of script and style is not markup.
      if ((tag === 'script' || tag === 'style') && m[0][1] !== '/') {
        const end = html.toLowerCase().indexOf(`</${tag}`, re.lastIndex);
        re.lastIndex = end < 0 ? html.length : end;
      }
    }
  }
}

const FIELD_ATTRIBUTES = [['data-vesper-meta', false], ['data-vesper-filter', true]];
const MAX_FIELD_CHARS = 1024;  // a field's value (the core refuses over 4 kB)

// The fields an element's data-vesper-meta / -filter give now (fixed values,
// attributes) and those its text gives when it closes (captures).
function elementFields(attrs) {
  const fixed = [], captures = [];
  for (const [name, filter] of FIELD_ATTRIBUTES) {
    for (const part of (attrs[name] ?? '').split(',')) {
      const m = /^\s*([^:[\]]+?)\s*(?::\s*(.*?)|\[([^\]]+)\])?\s*$/.exec(part);
      if (!m || !m[1]) continue;
      const value = m[2] ?? (m[3] !== undefined ? attrs[m[3].trim().toLowerCase()] ?? '' : null);
      if (value === null) captures.push({ key: m[1], filter, text: '' });
      else if (value.trim()) fixed.push({ key: m[1], value: value.trim().slice(0, MAX_FIELD_CHARS), filter });
    }
  }
  return { fixed, captures };
}

// Sections of one HTML page: [{ level, title, anchor, body }], the page's
// title and language, and its fields ([{ key, value, filter }]).
export function htmlSections(html) {
  const all = [...tokens(html)];
  const page = { title: '', description: '', lang: '', sections: [], fields: [] };
  const capturing = [];  // open elements whose text is a field's value
  const closeCaptures = (entry) => {
    for (const c of entry.captures ?? []) {
      const value = decodeEntities(c.text).replace(/\s+/g, ' ').trim().slice(0, MAX_FIELD_CHARS);
      if (value) page.fields.push({ key: c.key, value, filter: c.filter });
      capturing.splice(capturing.indexOf(c), 1);
    }
  };
  const marked = all.some((t) => t.tag && !t.close && 'data-vesper-body' in t.attrs);
  const hasMain = all.some((t) => t.tag === 'main' && !t.close);
  const regionTag = marked ? null : hasMain ? 'main' : 'body';
  let inTitle = false, region = 0, skip = 0, heading = null;
  const stack = [];  // open elements: { tag, region, skip }
  let current = { level: 0, title: '', anchor: '', body: '' };
  const text = (s) => {
    if (heading) heading.title += s;
    else current.body += s;
  };
  for (const t of all) {
    if (t.text !== undefined) {
      for (const c of capturing) c.text += t.text;
      if (inTitle) page.title += t.text;
      else if (region > 0 && skip === 0) text(decodeEntities(t.text).replace(/\s+/g, ' '));
      continue;
    }
    if (t.tag === 'html' && !t.close && t.attrs.lang) page.lang = t.attrs.lang;
    if (t.tag === 'meta' && !t.close && t.attrs.name?.toLowerCase() === 'description') page.description = decodeEntities(t.attrs.content ?? '').trim();
    if (t.tag === 'title') inTitle = !t.close;
    if (!t.close) {
      const opens = (marked ? 'data-vesper-body' in t.attrs : t.tag === regionTag) ? 1 : 0;
      const skips = SKIPPED.has(t.tag) || 'data-vesper-ignore' in t.attrs ? 1 : 0;
      const { fixed, captures } = elementFields(t.attrs);
      page.fields.push(...fixed);
      if (!VOID.has(t.tag) && !t.selfClosing) {
        stack.push({ tag: t.tag, opens, skips, captures });
        capturing.push(...captures);
      }
      region += opens;
      skip += skips;
      if (region > 0 && skip === 0 && /^h[1-6]$/.test(t.tag)) {
        heading = { level: Number(t.tag[1]), title: '', anchor: t.attrs.id ?? '' };
      } else if (BLOCK.has(t.tag) && region > 0) {
        text(t.tag === 'li' ? '\n- ' : '\n');
      }
      if (VOID.has(t.tag) || t.selfClosing) {
        region -= opens;
        skip -= skips;
      }
      continue;
    }
    // A closing tag closes the innermost open element of its name (and any left open inside it).
    const at = stack.map((e) => e.tag).lastIndexOf(t.tag);
    if (at < 0) continue;
    for (const e of stack.splice(at)) {
      region -= e.opens;
      skip -= e.skips;
      closeCaptures(e);
    }
    if (heading && t.tag === `h${heading.level}`) {
      page.sections.push(current);
      current = { ...heading, title: heading.title.replace(/\s+/g, ' ').trim(), body: '' };
      heading = null;
    } else if (BLOCK.has(t.tag) && t.tag !== 'li' && region > 0) {
      text('\n');
    }
  }
  page.sections.push(current);
  for (const e of stack.splice(0)) closeCaptures(e);  // left open at the end
  page.title = decodeEntities(page.title).replace(/\s+/g, ' ').trim();
  return page;
}

// GitHub's heading slugs: lower case, punctuation dropped, spaces to hyphens,
// repeats numbered ("usage", "usage-1").
export function slugger() {
  const seen = new Map();
  return (title) => {
    const base = title.toLowerCase().trim().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return n ? `${base}-${n}` : base;
  };
}

const unquote = (s) => s.trim().replace(/^(["'])(.*)\1$/, '$2');

// The fields of front matter's `meta:` and `filters:` maps: indented
// "key: value" or "key: [a, b]" lines under them (a small, flat YAML subset).
function frontMatterFields(lines) {
  const fields = [];
  let kind = null;  // the map the indented lines belong to
  for (const line of lines) {
    const top = /^(meta|filters):\s*$/.exec(line);
    if (top) { kind = top[1]; continue; }
    const entry = kind && /^\s+([^:#\s][^:#]*?):\s*(.+?)\s*$/.exec(line);
    if (!entry) { if (!/^\s/.test(line)) kind = null; continue; }
    const list = /^\[(.*)\]$/.exec(entry[2]);
    for (const value of (list ? list[1].split(',') : [entry[2]]).map(unquote).filter(Boolean)) {
      fields.push({ key: entry[1].trim(), value: value.slice(0, MAX_FIELD_CHARS), filter: kind === 'filters' });
    }
  }
  return fields;
}

// Sections of one Markdown page, with its front matter's title, description,
// lang and fields.
export function markdownSections(text) {
  const page = { title: '', description: '', lang: '', sections: [], fields: [] };
  const front = /^---\r?\n([^]*?)\r?\n---\r?\n/.exec(text);
  if (front) {
    const lines = front[1].split(/\r?\n/);
    for (const line of lines) {
      const kv = /^(title|description|lang):\s*["']?(.*?)["']?\s*$/.exec(line);
      if (kv) page[kv[1]] = kv[2];
    }
    page.fields = frontMatterFields(lines);
    text = text.slice(front[0].length);
  }
  const slug = slugger();
  let current = { level: 0, title: '', anchor: '', body: '' };
  let fenced = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const h = fenced ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) {
      current.body += `${line}\n`;
      continue;
    }
    page.sections.push(current);
    const explicit = /\s*\{#([^}\s]+)\}$/.exec(h[2]);
    const title = explicit ? h[2].slice(0, explicit.index) : h[2];
    current = { level: h[1].length, title, anchor: explicit ? explicit[1] : slug(title), body: '' };
  }
  page.sections.push(current);
  if (!page.title) page.title = page.sections.find((s) => s.level === 1)?.title ?? '';
  return page;
}

// A file's URL relative to the site root: an HTML page where the server
// finds it ("guide/index.html" -> "/guide/"), a Markdown page by the template.
export function pageUrl(path, urlTemplate = DEFAULT_URL_TEMPLATE) {
  const clean = path.replace(/\\/g, '/').replace(/^\.?\//, '');
  if (/\.html?$/i.test(clean)) return `/${clean.replace(/(^|\/)index\.html?$/i, '$1')}`;
  const stem = clean.replace(/\.(md|markdown)$/i, '').replace(/(^|\/)(index|README)$/i, '$1').replace(/\/$/, '');
  return urlTemplate.replace('{path}', stem).replace(/\/{2,}/g, '/');
}

// files: [{ path (relative to the site root), text }]. Resolves to the
// documents to store: [{ source: url#anchor, text, language, fields? }]; sections
// with no text of their own are left out (their titles lead their children's).
export function siteDocuments(files, { urlTemplate = DEFAULT_URL_TEMPLATE } = {}) {
  const docs = [];
  for (const f of files) {
    const page = /\.html?$/i.test(f.path) ? htmlSections(f.text) : markdownSections(f.text);
    const url = pageUrl(f.path, urlTemplate);
    const trail = [];  // open headings: { level, title }
    for (const s of page.sections) {
      if (s.level) {
        while (trail.length && trail.at(-1).level >= s.level) trail.pop();
        trail.push(s);
      }
      const body = s.body.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
      if (!body) continue;
      // The page's title leads unless its first heading already says it,
      // with the page's description (a summary its author wrote) beside it,
      // as the chunker does with a Markdown file's front matter.
      const titles = trail.map((h) => h.title).filter(Boolean);
      const lead = page.description && page.description !== page.title ? `${page.title} — ${page.description}` : page.title;
      if (page.title && titles[0] === page.title) titles[0] = lead;
      else if (page.title) titles.unshift(lead);
      const anchor = [...trail].reverse().find((h) => h.anchor)?.anchor;
      const text = `${titles.map((t, i) => `${'#'.repeat(Math.min(i + 1, 6))} ${t}`).join('\n')}\n\n${body}\n`;
      docs.push({ source: anchor ? `${url}#${anchor}` : url, text, language: page.lang || null, ...(page.fields?.length ? { fields: page.fields } : {}) });
    }
  }
  return docs;
}
