// Marks a search's words on the page a result leads to. A page of the site
// includes it; <vesper-search highlight> links its results with the query in
// ?vesper-highlight=..., and this wraps each of the query's words in the
// page's text in <mark class="vesper-highlight"> (the same matching as the
// results' excerpts), then scrolls the first mark after the anchor into view.
//
//   <script type="module" src="/vesper/vesper-highlight.mjs"></script>
import { highlightSpans } from './engine/results.mjs';

export const HIGHLIGHT_PARAM = 'vesper-highlight';
// Text under these is not prose a reader looks for.
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TEXTAREA', 'INPUT', 'SELECT', 'MARK', 'SVG']);

// Wraps the query's words in the text under `root`; returns the marks made.
export function highlightWords(root, query) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => {
      for (let p = n.parentElement; p && p !== root.parentElement; p = p.parentElement) {
        if (SKIP.has(p.tagName.toUpperCase())) return NodeFilter.FILTER_REJECT;
      }
      return NodeFilter.FILTER_ACCEPT;
    },
  });
  const nodes = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
  const marks = [];
  for (const node of nodes) {
    const spans = highlightSpans(node.data, query);
    for (const [a, b] of spans.reverse()) {
      const word = node.splitText(a);
      word.splitText(b - a);
      const mark = Object.assign(document.createElement('mark'), { className: 'vesper-highlight' });
      word.replaceWith(mark);
      mark.append(word);
      marks.unshift(mark);
    }
  }
  return marks;
}

const query = new URLSearchParams(location.search).get(HIGHLIGHT_PARAM);
if (query && query.trim()) {
  const run = () => {
    const marks = highlightWords(document.querySelector('main') ?? document.body, query);
    // The section the result named, else the first mark.
    if (!location.hash) marks[0]?.scrollIntoView({ block: 'center' });
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run, { once: true });
  else run();
}
