// Search quality on the default knowledge base as a user sees it: ranking
// (BM25, the model, hybrid) and the page's default view (what is shown at
// the default settings), per question set, language and kind.
//
//   node bench/quality/eval.mjs [--model ID|DIR] [--json OUT.json] [--markdown OUT.md] [--before BEFORE.json]
//
// The knowledge base is indexed through the same pipeline the CLI's build
// uses (web/engine/kb.mjs) and searched through the core's query, as the
// page, the CLI, the component and the persona do.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadCore, repoRoot } from '../../tools/cli/core.mjs';
import { nodeEmbedder } from '../../tools/cli/models.mjs';
import { readQuestionSets, isRelevant, answerable, LANGUAGES } from './questions.mjs';
import { indexKnowledgeBase } from './kb-index.mjs';
import { userView, SHOWN } from './view.mjs';
import { renderMarkdown } from './report.mjs';

const { values: opt } = parseArgs({
  options: {
    model: { type: 'string', default: 'default' },
    json: { type: 'string' },
    markdown: { type: 'string' },
    before: { type: 'string' },
    label: { type: 'string', default: 'after' },
    // Search options to try (JSON, e.g. '{"translatedWeight":0.75}'): for
    // choosing a weight on the development half.
    search: { type: 'string', default: '{}' },
  },
});
const extra = JSON.parse(opt.search);

const RANK_DEPTH = 10;

function rankOf(q, chunks) {
  return chunks.slice(0, RANK_DEPTH).findIndex((c) => isRelevant(q, c));
}

// Per question: the rank of the first relevant passage in each ranking, and
// what the page shows by default.
async function judge(ctx, questions) {
  const { core, embedder, db, lexical, byId } = ctx;
  const qv = await embedder.embed(questions.map((q) => q.question), { kind: 'query' });
  const vec = (i) => qv.vectors.subarray(i * qv.dims, (i + 1) * qv.dims);
  const take = (rs) => rs.map((r) => byId.get(r.id));
  return questions.map((q, i) => {
    const bm25 = take(lexical.search(q.question, null, { k: RANK_DEPTH, threshold: 0, mode: 'lexical' }));
    const model = take(db.search(q.question, vec(i), { k: RANK_DEPTH, threshold: -1, mode: 'vector', ...extra }));
    const hybrid = take(db.search(q.question, vec(i), { k: RANK_DEPTH, threshold: -1, mode: 'hybrid', ...extra }));
    const view = userView(ctx, q.question, vec(i), extra);
    const shown = view.shown.slice(0, SHOWN).map((r) => byId.get(r.id));
    return {
      id: q.id,
      rank: { bm25: rankOf(q, bm25), model: rankOf(q, model), hybrid: rankOf(q, hybrid) },
      shown: shown.length,
      shownRelevant: shown.some((c) => isRelevant(q, c)),
      top: shown[0] ? { title: shown[0].title.join(' > '), relevant: isRelevant(q, shown[0]), inLanguage: shown[0].language === q.lang } : null,
      evidence: view.evidence ?? null,
    };
  });
}

function summarise(qs, verdicts) {
  const v = qs.map((q) => verdicts.get(q.id));
  const ans = qs.filter(answerable).map((q) => verdicts.get(q.id));
  const unans = qs.filter((q) => !answerable(q)).map((q) => verdicts.get(q.id));
  const frac = (xs, f) => (xs.length ? xs.filter(f).length / xs.length : null);
  const ranking = {};
  for (const m of ['bm25', 'model', 'hybrid']) {
    ranking[m] = {
      hit1: frac(ans, (x) => x.rank[m] === 0),
      hit5: frac(ans, (x) => x.rank[m] >= 0 && x.rank[m] < 5),
      mrr10: ans.length ? ans.reduce((s, x) => s + (x.rank[m] >= 0 ? 1 / (x.rank[m] + 1) : 0), 0) / ans.length : null,
    };
  }
  return {
    n: v.length, answerable: ans.length, unanswerable: unans.length, ranking,
    view: {
      shownHit5: frac(ans, (x) => x.shownRelevant),
      answered: frac(ans, (x) => x.shown > 0),
      rejected: frac(unans, (x) => x.shown === 0),
      // Same-language questions (the knowledge base answers in the asker's
      // language) answered with a first result in that language / relevant.
      firstInLanguage: frac(qs.filter((q) => q.kind === 'same').map((q) => verdicts.get(q.id)).filter((x) => x.top), (x) => x.top.inLanguage),
      firstRelevant: frac(ans.filter((x) => x.top), (x) => x.top.relevant),
    },
  };
}

function groups(questions) {
  const out = [];
  for (const split of ['held-out', 'dev', 'full', 'legacy']) {
    const s = questions.filter((q) => (split === 'full' ? q.split === 'dev' || q.split === 'held-out' : q.split === split));
    if (!s.length) continue;
    out.push([`${split}`, 'all', s]);
    for (const lang of LANGUAGES) out.push([split, lang, s.filter((q) => q.lang === lang)]);
    out.push([split, 'same-language', s.filter((q) => q.kind === 'same')]);
    out.push([split, 'cross-lingual', s.filter((q) => q.kind === 'cross')]);
    out.push([split, 'unanswerable, sharing words', s.filter((q) => q.kind === 'unans-overlap')]);
    out.push([split, 'unanswerable, unrelated', s.filter((q) => q.kind === 'unans-plain')]);
    if (split === 'held-out' || split === 'dev') {
      for (const lang of LANGUAGES) {
        out.push([split, `${lang} same-language`, s.filter((q) => q.lang === lang && q.kind === 'same')]);
        out.push([split, `${lang} cross-lingual`, s.filter((q) => q.lang === lang && q.kind === 'cross')]);
      }
    }
  }
  return out.filter(([, , qs]) => qs.length);
}

// tools/demo.sh's first query, as the page shows it.
const DEMO_QUESTION = 'Why did Tesla bet on cameras instead of LiDAR?';
async function demoQuery(ctx) {
  const { vectors } = await ctx.embedder.embed([DEMO_QUESTION], { kind: 'query' });
  const shown = userView(ctx, DEMO_QUESTION, vectors).shown.slice(0, SHOWN);
  return { question: DEMO_QUESTION, top: shown[0] ? shown[0].title.join(' > ') : null, shown: shown.map((r) => r.title.join(' > ')) };
}

async function main() {
  const core = await loadCore();
  const embedder = await nodeEmbedder(core, opt.model);
  const ctx = await indexKnowledgeBase(core, embedder);
  const questions = readQuestionSets(repoRoot);
  const verdicts = new Map((await judge(ctx, questions)).map((v) => [v.id, v]));
  const table = groups(questions).map(([split, group, qs]) => ({ split, group, ...summarise(qs, verdicts) }));
  const demo = await demoQuery(ctx);
  const report = {
    label: opt.label, model: embedder.info.id, chunks: ctx.chunks.length, questions: questions.length, table,
    verdicts: Object.fromEntries(verdicts), demo,
  };
  if (opt.json) writeFileSync(opt.json, JSON.stringify(report, null, 1) + '\n');
  const before = opt.before ? JSON.parse(readFileSync(opt.before, 'utf8')) : null;
  if (opt.markdown) writeFileSync(opt.markdown, renderMarkdown(report, before, questions));
  const f = (x) => (x === null ? '  -  ' : x.toFixed(2));
  for (const row of table) {
    const r = row.ranking;
    process.stdout.write(`${row.split.padEnd(8)} ${row.group.padEnd(28)} n=${String(row.n).padStart(3)}  ` +
      `bm25 ${f(r.bm25.hit5)} model ${f(r.model.hit5)} hybrid ${f(r.hybrid.hit1)}/${f(r.hybrid.hit5)}/${f(r.hybrid.mrr10)}  ` +
      `shown@5 ${f(row.view.shownHit5)} answered ${f(row.view.answered)} rejected ${f(row.view.rejected)} ` +
      `first: in language ${f(row.view.firstInLanguage)} relevant ${f(row.view.firstRelevant)}\n`);
  }
}

await main();
