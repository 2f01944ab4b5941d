// The persona's graded question set (bench/persona/set-{en,pt,zh}.json) and
// its split: odd-numbered items are the development half, even-numbered ones
// are held out (every choice is made on the development half).
//
// Each file: { answerable: [{ id, question, facts: [[alt, ...], ...] }],
//              followups: [{ id, turns: [question, followup], facts: [[alt, ...]] }],
//              out_of_scope: [{ id, question }],
//              commands: [{ id, text, intent: "exit" | "reenter" | "question" }] }
// A fact is a list of alternatives (the same fact in each language's passage);
// an answer has the fact when it contains one of them (case- and
// accent-insensitive, Markdown emphasis and white space ignored).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const LANGUAGES = ['en', 'pt', 'zh'];

export function splitOf(id) {
  const n = Number(/(\d+)$/.exec(id)?.[1] ?? 0);
  return n % 2 === 1 ? 'dev' : 'held-out';
}

// What facts and answers are compared by.
export function fold(text) {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/\*\*|`/g, '').replace(/\s+/g, ' ').toLowerCase().trim();
}

export const hasFact = (answer, fact) => fact.some((alt) => fold(answer).includes(fold(alt)));

export function readPersonaSet(root, languages = LANGUAGES) {
  const out = [];
  for (const lang of languages) {
    const set = JSON.parse(readFileSync(join(root, `bench/persona/set-${lang}.json`), 'utf8'));
    for (const kind of ['answerable', 'followups', 'out_of_scope', 'commands']) {
      for (const item of set[kind] ?? []) out.push({ ...item, lang, kind, split: splitOf(item.id) });
    }
  }
  return out;
}
