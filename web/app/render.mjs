// DOM building for the demo page. Every string that comes from a pack, a
// knowledge base, a model or the user (ids, titles, passages, names, errors)
// becomes a text node or an attribute value set through the DOM, never HTML
// source: a pack whose chunk id is `<img onerror=...>` shows that text and
// runs nothing.

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

const fold = (s) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const isWord = (c) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

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
