// The real document sets (see fetch.sh) and their questions, shared by the
// evaluation (eval.mjs) and the answerability fit (bench/quality/calibrate.mjs),
// which uses their development halves only.
//
// Questions: <set>.questions.tsv (n, lang, kind, question, relevant); odd n
// are the development half, even n the held-out half.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const DOCSETS = ['git', 'debref-pt', 'debref-zh-cn', 'npm'];

export const halfOf = (n) => (n % 2 ? 'dev' : 'held-out');

export function loadQuestions(set) {
  const lines = readFileSync(join(HERE, `${set}.questions.tsv`), 'utf8').split('\n').filter(Boolean).slice(1);
  return lines.map((line) => {
    const [n, lang, kind, question, relevant = ''] = line.split('\t');
    return { n: Number(n), lang, kind, question, relevant: relevant.split('|').filter(Boolean), half: halfOf(Number(n)) };
  });
}

export const docsetsFetched = () => DOCSETS.every((set) => existsSync(join(HERE, '.cache', set, 'docs')));

export function loadDocs(set) {
  const dir = join(HERE, '.cache', set, 'docs');
  if (!existsSync(dir)) throw new Error(`${dir} is missing: run bench/docsets/fetch.sh`);
  return readdirSync(dir).filter((f) => f.endsWith('.md')).sort()
    .map((source) => ({ source, text: readFileSync(join(dir, source), 'utf8') }));
}
