// The search-quality question sets over the default knowledge base
// (web/kb/karpathy) and their split into a development half and a held-out
// half. Every choice (fusion weights, calibration, demotion) is made on the
// development half; reports give the held-out half.
//
// Files: bench/quality/questions-{en,pt,zh}.tsv (id, lang, kind, markers,
// question) and the older set models/default/eval/queries.tsv (kept as
// "legacy"). kind: same | cross | unans-overlap | unans-plain.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const KINDS = ['same', 'cross', 'unans-overlap', 'unans-plain'];
export const LANGUAGES = ['en', 'pt', 'zh'];

export const answerable = (q) => q.kind === 'same' || q.kind === 'cross';

function rows(path) {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.split('\t'));
}

const markerList = (m) => (m === '-' ? [] : m.split('|').map((x) => x.toLowerCase()));

// Odd-numbered questions are the development half, even-numbered ones are
// held out: each kind is written as a contiguous run, so both halves get
// every kind and language in the same proportions.
export function splitOf(id) {
  const n = Number(/(\d+)$/.exec(id)?.[1] ?? 0);
  return n % 2 === 1 ? 'dev' : 'held-out';
}

export function readQuestionSets(root) {
  const out = [];
  for (const lang of LANGUAGES) {
    for (const [id, l, kind, markers, question] of rows(join(root, `bench/quality/questions-${lang}.tsv`))) {
      if (!KINDS.includes(kind)) throw new Error(`${id}: unknown kind '${kind}'`);
      out.push({ id, lang: l, kind, markers: markerList(markers), question, split: splitOf(id) });
    }
  }
  for (const [id, lang, cross, markers, question] of rows(join(root, 'models/default/eval/queries.tsv'))) {
    const kind = markers === '-' ? 'unans-plain' : cross === 'yes' ? 'cross' : 'same';
    out.push({ id: `legacy-${id}`, lang, kind, markers: markerList(markers), question, split: 'legacy' });
  }
  return out;
}

// A passage answers a question when it holds one of the question's markers.
export function isRelevant(q, chunk) {
  const hay = `${chunk.title.join(' ')} ${chunk.text}`.toLowerCase();
  return q.markers.some((m) => hay.includes(m));
}
