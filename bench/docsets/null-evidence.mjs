// Collection-relative answerability, a simulation (session 53; METHODS.md):
// the evidence the engine reports for every question of the default knowledge
// base and the document sets (both halves), and for a bank of everyday probe
// questions (probes.tsv, 20 per language, unrelated to every set) run against
// each collection: its null level of each feature per query language.
//   node bench/docsets/null-evidence.mjs && node bench/docsets/null-fit.mjs
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../../web/vesper-engine.mjs';
import { repoRoot } from '../../tools/cli/core.mjs';
import { DOCSETS, loadDocs, loadQuestions } from './sets.mjs';
import { metaTextOf } from '../../web/engine/kb.mjs';
import { readQuestionSets, isRelevant, answerable } from '../../bench/quality/questions.mjs';
const engine = await createEngine({ model: join(repoRoot, 'models/default') });
const probes = readFileSync(join(repoRoot, 'bench/docsets/probes.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t'));
const KB = join(repoRoot, 'web/kb/karpathy');
const kbDocs = readdirSync(KB).filter((f) => f.endsWith('.txt')).sort().map((f) => ({ source: f, text: readFileSync(join(KB, f), 'utf8') }));
const kbQs = readQuestionSets(repoRoot).filter((q) => q.split !== 'legacy').map((q) => ({ lang: q.lang, half: q.split, ans: answerable(q), kind: q.kind, question: q.question, rel: (r) => isRelevant(q, r) }));
const sets = [['kb', kbDocs, kbQs, { metaText: metaTextOf(JSON.parse(readFileSync(join(KB, 'persona.json'), 'utf8'))) }]];
for (const s of DOCSETS) sets.push([s, loadDocs(s), loadQuestions(s).map((q) => ({ lang: q.lang, half: q.half, ans: q.kind !== 'unrelated', kind: q.kind, question: q.question, rel: (r) => q.relevant.includes(r.source) })), {}]);
const out = { rows: [], nulls: {} };
for (const [name, docs, qs, opts] of sets) {
  await engine.store(name, docs, opts);
  const nulls = {};
  for (const [lang, q] of probes) (nulls[lang] ??= []).push((await engine.search(name, q, { k: 5, padTo: 0 })).evidence);
  out.nulls[name] = nulls;
  for (const q of qs) {
    const r = await engine.search(name, q.question, { k: 5, padTo: 0 });
    const ranked = (r.ranked ?? [...r.results, ...r.nearMisses]).slice(0, 5);
    out.rows.push({ corpus: name, lang: q.lang, half: q.half, ans: q.ans, kind: q.kind, answerable: r.answerable, unsure: r.unsure, confidence: r.confidence,
      shownRel: r.results.slice(0, 5).some(q.rel), rankedRel: ranked.some(q.rel), evidence: r.evidence });
  }
  engine.remove(name);
  console.error(name, 'done');
}
mkdirSync(join(repoRoot, 'build/tmp'), { recursive: true });
writeFileSync(join(repoRoot, 'build/tmp/null-evidence.json'), JSON.stringify(out));
