// DOM building for the demo page. Every string that comes from a pack, a
// knowledge base, a model or the user (ids, titles, passages, names, errors)
// becomes a text node or an attribute value set through the DOM, never HTML
// source: a pack whose chunk id is `<img onerror=...>` shows that text and
// runs nothing.

import { highlightSpans } from '../engine/results.mjs';

export { highlightSpans };

// A size for people: "783 kB", "8.3 MB", "118.0 MB".
export function formatBytes(n) {
  return n < 1e6 ? `${(n / 1e3).toFixed(0)} kB` : `${(n / 1e6).toFixed(1)} MB`;
}

// A stored database's date and time, local, as "2026-12-05 09:41". Not
// toLocaleString(): its first call loads the browser's locale data, 0.15 s
// of a cold load spent on one table cell.
export function formatDate(ms) {
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

// el('li', { className: 'x', dataset: { id }, attrs: { title } }, 'text', node, ...)
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  const { dataset = {}, attrs = {}, ...rest } = props;
  Object.assign(node, rest);
  for (const [k, v] of Object.entries(dataset)) node.dataset[k] = v;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

// The passage as text nodes with the query's words in <mark>.
export function highlighted(text, query) {
  const frag = document.createDocumentFragment();
  let at = 0;
  for (const [a, b] of highlightSpans(text, query)) {
    frag.append(text.slice(at, a), el('mark', {}, text.slice(a, b)));
    at = b;
  }
  frag.append(text.slice(at));
  return frag;
}

// A persona's answer: its text with each [n] that names a citation turned
// into the node link(citation, '[n]') returns, and blank lines kept as breaks.
export function answerNodes(answer, citations, link) {
  const byN = new Map(citations.map((c) => [c.n, c]));
  const frag = document.createDocumentFragment();
  const paragraphs = answer.split('\n\n');
  paragraphs.forEach((para, i) => {
    if (i) frag.append(el('br'), el('br'));
    let at = 0;
    for (const m of para.matchAll(/\[(\d+)\]/g)) {
      const c = byN.get(Number(m[1]));
      if (!c) continue;
      frag.append(para.slice(at, m.index), link(c, m[0]));
      at = m.index + m[0].length;
    }
    frag.append(para.slice(at));
  });
  return frag;
}
