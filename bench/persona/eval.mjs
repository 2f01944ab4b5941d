// The persona's answers on the graded set (bench/persona/set-*.json), as a
// reader sees them: answered with the fact asked for, follow-ups that
// continue the topic, out-of-scope questions never answered, role commands
// in natural phrasings, and answers free of fragments.
//
//   node bench/persona/eval.mjs [--json OUT.json] [--markdown OUT.md] [--before BEFORE.json]
//                               [--transcripts OUT.md] [--show dev|held-out|all] [--label after]
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCore, repoRoot } from '../../tools/cli/core.mjs';
import { nodeEmbedder } from '../../tools/cli/models.mjs';
import { indexKnowledgeBase, KB_DIR } from '../quality/kb-index.mjs';
import { readPersonaSet, hasFact, fold, LANGUAGES } from './set.mjs';
import { fragmentsOf, headingsOf, instructionsIn, instructionsOf } from './fragments.mjs';
import { renderMarkdown } from './report.mjs';


export async function openPersona() {
  const core = await loadCore();
  const embedder = await nodeEmbedder(core, 'default');
  const ctx = await indexKnowledgeBase(core, embedder);
  const personaText = readFileSync(join(KB_DIR, 'persona.json'), 'utf8');
  const persona = core.persona(personaText);
  const chunks = ctx.db.chunks();
  const headings = headingsOf(chunks);
  const instructions = instructionsOf(chunks, JSON.parse(personaText).meta_lead_ins);
  const metaIds = new Set(chunks.filter((c) => c.meta).map((c) => c.id));
  // Where an answerable item's facts are written: "same" when every fact is in
  // a passage of the asker's language, else "cross" (only another language's
  // passages hold one of them): the same- and cross-language rows.
  const written = Object.fromEntries(LANGUAGES.map((l) => [l, fold(chunks.filter((c) => c.language === l).map((c) => c.text).join('\n'))]));
  const reachOf = (item) => (item.facts.every((f) => f.some((alt) => written[item.lang]?.includes(fold(alt)))) ? 'same' : 'cross');
  // One turn: the reply and the state after it.
  const ask = async (question, state = {}) => {
    // What the engine's ask embeds (web/vesper-engine.mjs): the persona's lookup text.
    const { vectors } = await embedder.embed([persona.lookupText(question)], { kind: 'query' });
    return persona.answer(ctx.db, question, vectors, state, {});
  };
  return { ...ctx, persona, headings, metaIds, instructions, ask, reachOf };
}

const ANSWERED = new Set(['answer']);
const REFUSED = new Set(['dont_know', 'declined']);

// One verdict per item: passed or not, and what was said.
export async function judgeItem(p, item) {
  const said = [];
  const turn = async (q, state) => {
    const r = await p.ask(q, state);
    said.push({ q, a: r.answer, kind: r.kind, citations: r.citations.map((c) => c.title.at(-1) ?? ''),
      meta: r.citations.filter((c) => p.metaIds.has(c.id)).map((c) => c.title.at(-1) ?? c.id) });
    return r;
  };
  let pass = false;
  if (item.kind === 'answerable') {
    const r = await turn(item.question);
    pass = ANSWERED.has(r.kind) && item.facts.every((f) => hasFact(r.answer, f));
  } else if (item.kind === 'followups') {
    const first = await turn(item.turns[0]);
    const r = await turn(item.turns[1], first.state);
    pass = ANSWERED.has(r.kind) && item.facts.every((f) => hasFact(r.answer, f));
  } else if (item.kind === 'out_of_scope') {
    pass = REFUSED.has((await turn(item.question)).kind);
  } else {
    const state = item.intent === 'reenter' ? { inRole: false, disclaimerShown: true } : {};
    const r = await turn(item.text, state);
    pass = item.intent === 'exit' ? r.kind === 'exited' : item.intent === 'reenter' ? r.kind === 'reentered'
      : r.kind !== 'exited' && r.kind !== 'reentered';
  }
  // Text about the knowledge base itself (the persona file's meta sections,
  // passages and the instructions under its lead-ins) is never an answer.
  const fragments = said.flatMap((s) => [...fragmentsOf(s.a, p.headings), ...s.meta.map((m) => `meta text cited: "${m}"`),
    ...instructionsIn(s.a, p.instructions)]);
  const reach = item.kind === 'answerable' ? p.reachOf(item) : undefined;
  return { id: item.id, lang: item.lang, kind: item.kind, split: item.split, reach, pass, fragments, said };
}

const KINDS = ['answerable', 'followups', 'out_of_scope', 'commands'];

const rate = (v) => ({ n: v.length, pass: v.length ? v.filter((x) => x.pass).length / v.length : null });

export function summarise(verdicts) {
  const out = {};
  for (const split of ['dev', 'held-out', 'all']) {
    out[split] = {};
    for (const lang of [...LANGUAGES, 'all']) {
      const row = {};
      const v = verdicts.filter((x) => (split === 'all' || x.split === split) && (lang === 'all' || x.lang === lang));
      for (const kind of KINDS) row[kind] = rate(v.filter((x) => x.kind === kind));
      for (const reach of ['same', 'cross']) row[`answerable_${reach}`] = rate(v.filter((x) => x.kind === 'answerable' && x.reach === reach));
      row.fragment_free = v.length ? v.filter((x) => !x.fragments.length).length / v.length : null;
      out[split][lang] = row;
    }
  }
  return out;
}

async function main() {
  const { values: opt } = parseArgs({
    options: {
      json: { type: 'string' }, markdown: { type: 'string' }, before: { type: 'string' },
      show: { type: 'string' }, label: { type: 'string', default: 'after' },
    },
  });
  const p = await openPersona();
  const items = readPersonaSet(repoRoot);
  const verdicts = [];
  for (const item of items) verdicts.push(await judgeItem(p, item));
  const summary = summarise(verdicts);
  const report = { label: opt.label, summary, verdicts };
  if (opt.json) writeFileSync(opt.json, JSON.stringify(report, null, 1) + '\n');
  const before = opt.before ? JSON.parse(readFileSync(opt.before, 'utf8')) : null;
  if (opt.markdown) writeFileSync(opt.markdown, renderMarkdown(report, before));
  for (const split of ['dev', 'held-out']) {
    const s = summary[split].all;
    console.log(`${split}: answered ${fmt(s.answerable)} (same language ${fmt(s.answerable_same)}, cross ${fmt(s.answerable_cross)})  follow-ups ${fmt(s.followups)}  out-of-scope refused ${fmt(s.out_of_scope)}  commands ${fmt(s.commands)}  fragment-free ${s.fragment_free?.toFixed(2)}`);
    for (const lang of LANGUAGES) {
      const r = summary[split][lang];
      console.log(`  ${lang}: answered ${fmt(r.answerable)}  follow-ups ${fmt(r.followups)}  oos ${fmt(r.out_of_scope)}  commands ${fmt(r.commands)}  fragment-free ${r.fragment_free?.toFixed(2)}`);
    }
  }
  if (opt.show) {
    for (const v of verdicts.filter((x) => opt.show === 'all' || x.split === opt.show)) {
      if (v.pass && !v.fragments.length) continue;
      console.log(`\n## ${v.id} ${v.pass ? 'PASS' : 'FAIL'} ${v.fragments.join('; ')}`);
      for (const s of v.said) console.log(`Q: ${s.q}\n[${s.kind}] ${s.a}\n  cites: ${s.citations.join(' | ')}`);
    }
  }
}

const fmt = (c) => (c.pass === null ? '-' : `${c.pass.toFixed(2)} (${c.n})`);

if (import.meta.url === `file://${process.argv[1]}`) await main();
