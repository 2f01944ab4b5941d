// <vesper-search>: a search box over a prebuilt pack, for static sites.
//
//   <script type="module" src="vesper/vesper-search.mjs"></script>
//   <vesper-search src="kb.pack" model="models/default/" k="5"></vesper-search>
//
// Attributes: src (pack URL, or the folder `vesper split` wrote, ending in
// "/": a large site's index, fetched in parts as queries need them;
// required), db (collection name, default: the
// pack's first), model (model folder; omit for lexical packs), k, threshold,
// placeholder, base (where a site's result URLs start, default "/"), filter
// ("key:value, key:value": only pages a site marked so with
// data-vesper-filter; every key must match, any of its values). A pack
// built with `vesper build --site` lists pages as links with a marked
// excerpt and their matching sections under them; ArrowDown and ArrowUp move
// between the links. With the highlight attribute, links carry the query
// (?vesper-highlight=...) for web/vesper-highlight.mjs on the page they open. When nothing answers a query, the nearest passages are listed
// greyed (part="near-miss"). Events: vesper-ready, vesper-results ({ detail: { query,
// results } }), vesper-error ({ detail: { message } }). The engine and the
// model load once per page and are shared by every element.
import { createEngine } from './vesper-engine.mjs';
import { excerpt, filtersFrom, groupByPage, pageOf } from './engine/results.mjs';
import { SPLIT_ENTRY } from './engine/split.mjs';

// A split index's folder: its URL ends in "/" or names its entry.
const isSplit = (url) => url.pathname.endsWith('/') || url.pathname.endsWith(`/${SPLIT_ENTRY}`);

// A pack's bytes, asked for as the element loads: they download while the
// engine does (on a real network a pack of a few MB takes as long as the
// engine), not after it.
async function packBytes(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url.pathname}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

// A pack (its bytes: packBytes), loaded whole, or a split index, fetched in
// parts per query. Resolves to the databases' names.
async function openIndex(engine, url, bytes) {
  if (isSplit(url)) return [await engine.openSplit(new URL('./', url))];
  return engine.loadPack(await bytes);
}

const engines = new Map();
function engineFor(model) {
  if (!engines.has(model)) engines.set(model, createEngine({ model: model || null }));
  return engines.get(model);
}

const STYLE = `
  :host { display: block; font: inherit; }
  input { width: 100%; box-sizing: border-box; font: inherit; padding: .5rem; border: 1px solid #aab; border-radius: 6px; }
  input:focus-visible { outline: 3px solid #f59f00; }
  ol { padding-left: 1.2rem; }
  li { margin: .5rem 0; }
  .meta { color: #5c6370; font-size: .85em; }
  .status { color: #5c6370; font-size: .9em; }
  .error { color: #c92a2a; }
  li[part="near-miss"] { opacity: .6; }
  a { color: inherit; font-weight: 600; }
  a:focus-visible { outline: 3px solid #f59f00; }
  mark { background: #ffe066; color: inherit; }
  ul { padding-left: 1rem; margin: .25rem 0; list-style: none; }
  @media (prefers-color-scheme: dark) { .meta, .status { color: #adb5bd; } mark { background: #8f6e00; } }
`;
// Passages listed, greyed, when nothing answers the query.
const NEAR_MISSES = 3;

class VesperSearch extends HTMLElement {
  static observedAttributes = ['src', 'model', 'db'];

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>${STYLE}</style>
      <label part="label"><span class="status" role="status" aria-live="polite">Loading search...</span>
      <input type="search" part="input" aria-label="Search" disabled></label>
      <ol part="results" aria-live="polite"></ol>`;
    this.input = root.querySelector('input');
    this.status = root.querySelector('.status');
    this.list = root.querySelector('ol');
    this.input.addEventListener('input', () => this.search(this.input.value));
    // ArrowDown from the box and between results, ArrowUp back: the links in order.
    root.addEventListener('keydown', (ev) => {
      if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
      const links = [...this.list.querySelectorAll('a')];
      if (!links.length) return;
      const at = links.indexOf(root.activeElement);
      const next = ev.key === 'ArrowDown' ? at + 1 : at - 1;
      ev.preventDefault();
      if (next < 0) this.input.focus();
      else links[Math.min(next, links.length - 1)].focus();
    });
  }

  connectedCallback() {
    this.load();
  }

  attributeChangedCallback() {
    if (this.isConnected) this.load();
  }

  async load() {
    const src = this.getAttribute('src');
    if (!src) return this.fail('vesper-search needs a src attribute (a .pack URL)');
    // An element upgraded after the page parsed is told of each attribute and
    // of its connection at once: one load per distinct source, not four
    // racing ones (a later one would replace the database under a search).
    const key = JSON.stringify([src, this.getAttribute('model'), this.getAttribute('db')]);
    if (key === this.loading) return;
    this.loading = key;
    try {
      const url = new URL(src, document.baseURI);
      const bytes = isSplit(url) ? null : packBytes(url);
      bytes?.catch(() => {});  // reported once the engine awaits them
      const engine = await engineFor(this.getAttribute('model') ?? '');
      const names = await openIndex(engine, url, bytes);
      this.engine = engine;
      this.db = this.getAttribute('db') ?? names[0];
      this.input.placeholder = this.getAttribute('placeholder') ?? 'Search';
      this.input.disabled = false;
      this.status.textContent = engine.notice ?? '';
      this.dispatchEvent(new CustomEvent('vesper-ready', { detail: { databases: names, model: engine.model } }));
      if (this.input.value.trim()) this.search(this.input.value);
    } catch (err) {
      this.loading = null;  // a later change of attributes tries again
      this.fail(err.message);
    }
  }

  fail(message) {
    this.status.textContent = message;
    this.status.classList.add('error');
    this.dispatchEvent(new CustomEvent('vesper-error', { detail: { message } }));
  }

  // A passage's excerpt with the query's words marked, as DOM nodes (never HTML source).
  excerptNodes(text, query) {
    const e = excerpt(text, query);
    const div = document.createElement('div');
    if (e.before) div.append('…');
    for (const p of e.parts) {
      if (!p.mark) div.append(p.text);
      else div.append(Object.assign(document.createElement('mark'), { textContent: p.text }));
    }
    if (e.after) div.append('…');
    return div;
  }

  link(url, text) {
    const base = new URL(this.getAttribute('base') ?? '/', document.baseURI);
    const href = new URL(url.replace(/^\//, ''), base);
    if (this.hasAttribute('highlight') && this.query) href.searchParams.set('vesper-highlight', this.query);
    return Object.assign(document.createElement('a'), { href: href.href, textContent: text });
  }

  // A page of a site: its link, its best section's excerpt, its other
  // matching sections. passages: the results by id, for their text.
  pageItem(page, query, nearMiss, passages) {
    const li = document.createElement('li');
    if (nearMiss) li.setAttribute('part', 'near-miss');
    const [best, ...more] = page.subResults;
    li.append(this.link(best.url, page.title || page.url), this.excerptNodes(passages.get(best.id).text, query));
    if (more.length) {
      const ul = document.createElement('ul');
      for (const s of more) {
        const item = document.createElement('li');
        item.setAttribute('part', 'sub-result');
        item.append(this.link(s.url, s.title.at(-1) ?? s.url));
        ul.append(item);
      }
      li.append(ul);
    }
    return li;
  }

  item(r, nearMiss) {
    const li = document.createElement('li');
    if (nearMiss) li.setAttribute('part', 'near-miss');
    const meta = document.createElement('div');
    meta.className = 'meta';
    meta.textContent = `${r.score.toFixed(2)} · ${r.title.join(' › ') || r.source}`;
    const text = document.createElement('div');
    text.textContent = r.text.length > 300 ? `${r.text.slice(0, 300)}…` : r.text;
    li.append(meta, text);
    return li;
  }

  // The filter attribute as the engine's filters ({ key: [values] }), or
  // null; parts that are not key:value are left out.
  filters() {
    const spec = this.getAttribute('filter');
    return spec ? filtersFrom(spec.split(',')).filters : null;
  }

  async search(query) {
    if (!query.trim()) {
      this.list.replaceChildren();
      return;
    }
    if (!this.engine) {
      this.status.textContent = 'Your query will run as soon as the index is ready...';
      return;  // connectedCallback runs what is in the box once ready
    }
    const ticket = (this.ticket = (this.ticket ?? 0) + 1);
    this.query = query;
    try {
      const threshold = this.hasAttribute('threshold') ? Number(this.getAttribute('threshold')) : null;
      const { results, nearMisses, unsure } = await this.engine.search(this.db, query, { k: Number(this.getAttribute('k') ?? 5), threshold, filters: this.filters() });
      if (ticket !== this.ticket) return;
      // Nothing answers: the nearest passages, greyed (part="near-miss"), so the reader still sees what is there.
      const shown = results.length ? results : nearMisses.slice(0, NEAR_MISSES);
      const site = shown.length && shown.every((r) => pageOf(r.source) !== null);
      const passages = new Map(shown.map((r) => [r.id, r]));
      const items = site
        ? groupByPage(shown, query).map((page) => this.pageItem(page, query, !results.length, passages))
        : shown.map((r) => this.item(r, !results.length));
      this.list.replaceChildren(...items);
      this.status.textContent = results.length ? ''
        : !shown.length ? 'Nothing here seems to answer that.'
          : unsure ? 'Not sure anything here answers that. The closest passages:' : 'Nothing here seems to answer that. The nearest passages:';
      this.dispatchEvent(new CustomEvent('vesper-results', { detail: { query, results } }));
    } catch (err) {
      this.fail(err.message);
    }
  }
}

customElements.define('vesper-search', VesperSearch);
