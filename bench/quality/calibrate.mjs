// Fits the default model's answerability decision on the development half of
// bench/quality and writes it into the model's manifest ("answerability"),
// where the engine, the CLI and the persona read it.
//
//   node bench/quality/calibrate.mjs [--model ID|DIR] [--write] [--refit] [--curve OUT.svg]
//
// Two stages. The first weighs FEATURES, fitted on this set's development
// half; it is frozen in the manifest ("base") and reused unless --refit.
// The second fits STACKED (the query's term coverage) on top of the first's
// score, on the development halves of this set and of the real document sets
// (bench/docsets, once fetched): the decision must hold on documents we did
// not write, and a joint refit of every feature there cost this knowledge
// base's paraphrases (bench/docsets/METHODS.md). --stack '' skips it;
// --docsets fits the first stage on the sets too (tried, dropped).
// --curve also prints the area under the trade-off curve per half and
// corpus (the document sets measured, once fetched, even when not fitted on).
//
// The decision is logistic over the evidence the core reports per query
// (core/search/answerability.h): shared feature weights, one bias per query
// language (the languages' cosines sit at different heights), L2-regularised.
// The cut is then moved to the point that maximises answerable questions
// answered (weighted, ANSWER_WEIGHT) plus unanswerable ones rejected (measured on the
// development half: favouring rejection, with a 0.9 target, cost the users
// more answers than it saved wrong ones; see bench/quality/EVAL.md). The floor (the slider's default) is the ranking score
// (what the slider filters and clients print) under which relevant passages
// almost never appear in the top 5.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCore, repoRoot } from '../../tools/cli/core.mjs';
import { nodeEmbedder, resolveModel } from '../../tools/cli/models.mjs';
import { readQuestionSets, isRelevant, answerable, LANGUAGES } from './questions.mjs';
import { indexKnowledgeBase } from './kb-index.mjs';
import { addChunks, calibrate as calibrateCollection, chunkDocuments } from '../../web/engine/kb.mjs';
import { DOCSETS, docsetsFetched, loadDocs, loadQuestions } from '../docsets/sets.mjs';

const { values: opt } = parseArgs({
  options: {
    model: { type: 'string', default: 'default' },
    write: { type: 'boolean', default: false },
    search: { type: 'string', default: '{}' },  // search options to fit under (JSON), as eval.mjs --search
    curve: { type: 'string' },  // OUT.svg: the trade-off curve (answered vs rejected as the cut moves)
    // Fit on the document sets' development halves too (bench/docsets).
    docsets: { type: 'boolean', default: false },
    // Comma-separated evidence names to weigh instead of FEATURES (for experiments).
    features: { type: 'string' },
    // Comma-separated evidence names fitted on top of the first fit (STACKED; '' for none).
    stack: { type: 'string' },
    // Refit the first stage on the development half; without it the first
    // stage is the manifest's frozen one ("base"; the first time, its calibration).
    refit: { type: 'boolean', default: false },
    // The weight of an answer kept against an unanswerable rejected in the cut (ANSWER_WEIGHT).
    'answer-weight': { type: 'string' },
  },
});
const extra = JSON.parse(opt.search);

// The evidence the decision weighs (core/search/answerability.h names them
// all; the rest, measured on the development half, added nothing a fit on
// ~160 questions could use, and are left at 0).
const FEATURES = opt.features ? opt.features.split(',')
  : ['cosine_margin', 'best_lexical', 'best_match', 'match_margin', 'top_same_language', 'vocabulary_coverage'];
// Evidence fitted in a second stage, on top of the first fit's score (which
// enters with weight 1, its own weights kept), on the development halves of
// the default knowledge base and the document sets together: what tells an
// unrelated question over someone else's documents from one they answer,
// without the first fit's balance for this knowledge base's paraphrases being
// refitted away (a joint fit of everything on every corpus zeroed the cosine
// margin and refused "What is the single shared trunk feeding about fifty
// perception outputs called?"; bench/docsets/METHODS.md).
const STACKED = opt.stack !== undefined ? opt.stack.split(',').filter(Boolean) : ['term_coverage'];
const FLOOR_KEEP = 0.97;  // the share of relevant top-5 passages the floor keeps
// An answerable question left unanswered costs the user more than a weak
// passage shown for an unanswerable one: the persona says "I don't know" to
// a question its knowledge base answers, while the search page still greys
// the near misses. Measured on the development half: at equal weights the
// cut answered 0.69 and rejected 0.87, and "Why did Tesla decide to rely on
// cameras instead of LiDAR?" went unanswered; at 2 it answers 0.80 and
// rejects 0.71.
const ANSWER_WEIGHT = opt['answer-weight'] ? Number(opt['answer-weight']) : 1;
const L2 = 0.01;
const STEPS = 4000;
const RATE = 0.5;

function features(e, names = FEATURES) {
  const all = {
    best_cosine: e.bestCosine, cosine_margin: e.bestCosine - e.typicalCosine, best_lexical: e.bestLexical,
    agreement: e.agreement ? 1 : 0, same_language: e.sameLanguage ? 1 : 0, best_match: e.bestMatch,
    match_margin: e.bestMatch - e.typicalMatch, top_same_language: e.topSameLanguage ? 1 : 0,
    top_coverage_loose: e.topCoverageLoose, top_coverage_strict: e.topCoverageStrict, vocabulary_coverage: e.vocabularyCoverage, term_coverage: e.termCoverage,
  };
  return names.map((f) => all[f]);
}

// Fits on standardised features (so one step size suits all), then folds the
// scaling back into raw-feature weights and biases.
function fit(raw, y, g, languages, offset = null) {
  const mean = raw[0].map((_, j) => raw.reduce((s, r) => s + r[j], 0) / raw.length);
  const sd = raw[0].map((_, j) => Math.sqrt(raw.reduce((s, r) => s + (r[j] - mean[j]) ** 2, 0) / raw.length) || 1);
  const x = raw.map((r) => r.map((v, j) => (v - mean[j]) / sd[j]));
  const { w, b } = descend(x, y, g, languages, offset);
  const rw = w.map((wj, j) => wj / sd[j]);
  const shift = rw.reduce((s, wj, j) => s + wj * mean[j], 0);
  return { w: rw, b: b.map((bi) => bi - shift) };
}

// Gradient descent on the mean log loss; x: feature rows, y: 0/1, g: language
// index, offset: a fixed score added to each row's (null: none).
function descend(x, y, g, languages, offset) {
  const w = new Array(x[0].length).fill(0);
  const b = new Array(languages).fill(0);
  for (let step = 0; step < STEPS; step++) {
    const gw = w.map((wi) => L2 * wi);
    const gb = new Array(languages).fill(0);
    for (let i = 0; i < x.length; i++) {
      const z = (offset ? offset[i] : 0) + b[g[i]] + x[i].reduce((s, xi, j) => s + xi * w[j], 0);
      const err = 1 / (1 + Math.exp(-z)) - y[i];
      x[i].forEach((xi, j) => { gw[j] += (err * xi) / x.length; });
      gb[g[i]] += err / x.length;
    }
    w.forEach((_, j) => { w[j] -= RATE * gw[j]; });
    b.forEach((_, j) => { b[j] -= RATE * gb[j]; });
  }
  return { w, b };
}

// The cut (on z) for one language: every candidate between observed scores,
// scored by answerable questions answered (ANSWER_WEIGHT) plus unanswerable ones rejected;
// ties go to the lower cut, since a lost answer costs more than a weak one shown.
function chooseCut(rows, answerWeight = ANSWER_WEIGHT) {
  const zs = [...new Set(rows.map((r) => r.z))].sort((p, q) => p - q);
  const cuts = [zs[0] - 1, ...zs.map((z, i) => (i + 1 < zs.length ? (z + zs[i + 1]) / 2 : z + 1))];
  const unans = rows.filter((r) => !r.answerable);
  const ans = rows.filter((r) => r.answerable);
  let best = null;
  for (const c of cuts) {
    const rejected = unans.filter((r) => r.z < c).length / Math.max(1, unans.length);
    const kept = ans.filter((r) => r.z >= c).length / Math.max(1, ans.length);
    const score = answerWeight * kept + rejected;
    if (!best || score > best.score + 1e-9) best = { c, rejected, kept, score };
  }
  return best;
}

// One row per question of a half: its evidence, whether it is answerable and
// the ranking scores of its relevant passages in the top 5.
function evidenceRow(q, r, isRel) {
  const top5 = r.results.slice(0, 5);
  const relevant = top5.filter(isRel);
  return { q, ev: r.evidence, x: features(r.evidence), answerable: answerable(q), relevantInTop5: relevant.length > 0, relevantScores: relevant.map((x) => x.score) };
}

async function queryAll(db, embedder, questions, isRelevantTo) {
  const qv = await embedder.embed(questions.map((q) => q.question), { kind: 'query' });
  return questions.map((q, i) => {
    const r = db.query(q.question, qv.vectors.subarray(i * qv.dims, (i + 1) * qv.dims), { k: 5, minScore: 0, ...extra });
    return evidenceRow(q, r, (x) => isRelevantTo(q, x));
  });
}

// The real document sets (bench/docsets), each indexed as the CLI's build
// would, so that the decision is fitted on more than one knowledge base.
async function docsetCollections(core, embedder) {
  if (!opt.docsets && !opt.curve && !STACKED.length) return [];
  if (!docsetsFetched()) {
    process.stderr.write('bench/docsets not fetched (bash bench/docsets/fetch.sh): fitting on the default knowledge base alone\n');
    return [];
  }
  const out = [];
  for (const set of DOCSETS) {
    const chunks = chunkDocuments(core, loadDocs(set), { tokenizer: embedder.tokenizer });
    const db = calibrateCollection(core.collection(`calibrate-${set}`, embedder.info), embedder);
    await addChunks(db, chunks, embedder, { batch: 64, yieldEvery: false });
    const byId = new Map(db.chunks().map((c) => [c.id, c]));
    out.push({ set, db, questions: loadQuestions(set).map((q) => ({ ...q, id: `${set}-${q.n}`, set, split: q.half, kind: q.kind === 'unrelated' ? 'unans-plain' : q.kind })), byId });
  }
  return out;
}

// Every question of one half, the default knowledge base's and the document sets'.
async function rowsOf(half, ctx, docsets) {
  const kb = readQuestionSets(repoRoot).filter((q) => q.split === half);
  const rows = await queryAll(ctx.db, ctx.embedder, kb, (q, x) => isRelevant(q, ctx.byId.get(x.id)));
  for (const d of docsets) {
    const mine = d.questions.filter((q) => q.split === half);
    rows.push(...await queryAll(d.db, ctx.embedder, mine, (q, x) => q.relevant.includes(d.byId.get(x.id)?.source)));
  }
  return rows;
}

// The second stage: STACKED fitted on `rows` (the development halves of every
// corpus) with the first fit's score as a fixed offset; the result is one
// linear model over FEATURES then STACKED, as the manifest holds it. `fitted`:
// the rows, their features extended, for the cut.
function stack(first, rows) {
  const g = rows.map((r) => LANGUAGES.indexOf(r.q.lang));
  const offset = rows.map((r, i) => first.b[g[i]] + r.x.reduce((s, xi, j) => s + xi * first.w[j], 0));
  const second = fit(rows.map((r) => features(r.ev, STACKED)), rows.map((r) => (r.answerable ? 1 : 0)), g, LANGUAGES.length, offset);
  const fitted = rows.map((r) => ({ ...r, x: [...r.x, ...features(r.ev, STACKED)] }));
  return { w: [...first.w, ...second.w], b: first.b.map((bi, l) => bi + second.b[l]), fitted };
}

// The first stage as the manifest keeps it: its "base" (the first fit a
// stacked calibration was made on), or its calibration as it is (with a
// floor, but the stacked evidence at 0). One weight per feature, one bias per
// language, as fit() returns them.
function frozenBase(a) {
  const langs = a?.base ?? a?.languages;
  if (!langs) return null;
  const w = FEATURES.map((f) => langs.en.weights[f] ?? 0);
  for (const l of LANGUAGES) {
    if (FEATURES.some((f, j) => (langs[l].weights[f] ?? 0) !== w[j])) throw new Error(`the manifest's weights differ between languages (${l}): refit with --refit`);
  }
  return { w, b: LANGUAGES.map((l) => langs[l].bias) };
}

const baseOf = (first) => Object.fromEntries(LANGUAGES.map((l, i) => [l, { bias: round(first.b[i]), weights: Object.fromEntries(FEATURES.map((f, j) => [f, round(first.w[j])])) }]));

async function main() {
  const core = await loadCore();
  const embedder = await nodeEmbedder(core, opt.model);
  const ctx = await indexKnowledgeBase(core, embedder);
  // With --curve alone, the document sets are measured on (the curve) but not fitted on.
  const measured = await docsetCollections(core, embedder);
  const docsets = opt.docsets ? measured : [];
  const rows = await rowsOf('dev', ctx, docsets);
  const dev = readQuestionSets(repoRoot).filter((q) => q.split === 'dev');
  process.stdout.write(`fitting on ${rows.length} development questions (${dev.length} on the default knowledge base, ${rows.length - dev.length} on ${docsets.length} document sets)\n`);
  const manifestPath = join(resolveModel(opt.model).dir, 'manifest.json');
  const frozen = opt.refit ? null : frozenBase(JSON.parse(readFileSync(manifestPath, 'utf8')).answerability);
  const first = frozen ?? fit(rows.map((r) => r.x), rows.map((r) => (r.answerable ? 1 : 0)), rows.map((r) => LANGUAGES.indexOf(r.q.lang)), LANGUAGES.length);
  const { w, b, fitted } = STACKED.length ? stack(first, await rowsOf('dev', ctx, measured)) : { ...first, fitted: rows };
  const languages = {};
  // One cut over all languages: the logistic biases already place each
  // language; a cut per language chosen on ~50 questions each swung from
  // answering everything to rejecting half the answerable ones.
  const scored = fitted.map((r) => ({ ...r, z: b[LANGUAGES.indexOf(r.q.lang)] + r.x.reduce((s, xi, j) => s + xi * w[j], 0) }));
  const cut = chooseCut(scored);
  LANGUAGES.forEach((lang, li) => {
    const mine = scored.filter((r) => r.q.lang === lang);
    const rej = mine.filter((r) => !r.answerable && r.z < cut.c).length / Math.max(1, mine.filter((r) => !r.answerable).length);
    const ans = mine.filter((r) => r.answerable && r.z >= cut.c).length / Math.max(1, mine.filter((r) => r.answerable).length);
    languages[lang] = { bias: round(b[li] - cut.c), weights: Object.fromEntries([...FEATURES, ...STACKED].map((f, j) => [f, round(w[j])])) };
    process.stdout.write(`${lang}: dev rejected ${rej.toFixed(2)}, answerable answered ${ans.toFixed(2)}\n`);
  });
  // Other languages: the strictest of the three.
  const strictest = LANGUAGES.reduce((m, l) => (languages[l].bias < languages[m].bias ? l : m));
  languages['*'] = { ...languages[strictest] };
  const scores = rows.flatMap((r) => r.relevantScores).filter((c) => typeof c === 'number').sort((p, q) => p - q);
  // Never below 0: a slider that starts below 0 means nothing.
  const floor = Math.max(0, round(scores[Math.floor((1 - FLOOR_KEEP) * scores.length)] ?? 0));
  // Lexical packs have no model and so no manifest: their cut on the best
  // normalised BM25 is the core's default (Answerability::kDefaultLexicalCut),
  // set from what this prints.
  const lexicalBest = dev.map((q) => {
    const r = ctx.lexical.query(q.question, null, { k: 5 });
    return { answerable: answerable(q), z: r.evidence.bestLexical };
  });
  // Equal weights: BM25 alone separates so little that favouring answers
  // answers everything.
  const lexicalCut = chooseCut(lexicalBest, 1);
  process.stdout.write(`lexical packs: best cut on normalised BM25 ${round(lexicalCut.c)} (dev rejected ${lexicalCut.rejected.toFixed(2)}, answered ${lexicalCut.kept.toFixed(2)})\n`);
  const method = STACKED.length ? `logistic; bench/quality/calibrate.mjs on the development half, then ${STACKED.join(', ')} on top with the document sets`
    : 'logistic; bench/quality/calibrate.mjs on the development half';
  const calibration = { method, floor, languages };
  if (STACKED.length) calibration.base = baseOf(first);
  const withStacked = (half) => rowsOf(half, ctx, measured).then((hs) => hs.map((r) => ({ ...r, x: [...r.x, ...features(r.ev, STACKED)] })));
  if (opt.curve) await writeCurve(await withStacked('held-out'), { w, b, cut: cut.c }, scored, await withStacked('dev'));
  process.stdout.write(JSON.stringify(calibration, null, 1) + '\n');
  if (opt.write) {
    const path = manifestPath;
    const m = JSON.parse(readFileSync(path, 'utf8'));
    m.answerability = calibration;
    writeFileSync(path, JSON.stringify(m, null, 2) + '\n');
  }
}

const round = (x) => Math.round(x * 1000) / 1000;

// Answered (answerable questions the decision keeps) and rejected
// (unanswerable ones it refuses) at every cut on z.
function curveOf(rows) {
  const zs = [...new Set(rows.map((r) => r.z))].sort((p, q) => p - q);
  const ans = rows.filter((r) => r.answerable);
  const unans = rows.filter((r) => !r.answerable);
  return [zs[0] - 1, ...zs, zs.at(-1) + 1].map((c) => ({
    c,
    answered: ans.filter((r) => r.z >= c).length / ans.length,
    rejected: unans.filter((r) => r.z < c).length / unans.length,
  }));
}

// The area under a curve of answered against rejected (1: a cut that keeps
// every answer and refuses every unanswerable question).
function areaOf(points) {
  const pts = [...points].sort((p, q) => p.rejected - q.rejected || q.answered - p.answered);
  let area = 0;
  for (let i = 1; i < pts.length; i++) area += (pts[i].rejected - pts[i - 1].rejected) * (pts[i].answered + pts[i - 1].answered) / 2;
  return area;
}

// The curve on both halves (the held-out half scored with the weights fitted
// on the development half), as an SVG picture with the chosen cut marked,
// and its points as TSV beside it.
async function writeCurve(held, model, devRows, allDev) {
  const heldRows = held.map((r) => ({ answerable: r.answerable, z: model.b[LANGUAGES.indexOf(r.q.lang)] + r.x.reduce((s, xi, j) => s + xi * model.w[j], 0) }));
  const curves = { dev: curveOf(devRows), 'held-out': curveOf(heldRows) };
  const at = (rows) => ({
    answered: rows.filter((r) => r.answerable && r.z >= model.cut).length / rows.filter((r) => r.answerable).length,
    rejected: rows.filter((r) => !r.answerable && r.z < model.cut).length / rows.filter((r) => !r.answerable).length,
  });
  writeFileSync(opt.curve, tradeoffSvg(curves, { dev: at(devRows), 'held-out': at(heldRows) }));
  for (const [half, source] of [['dev', allDev], ['held-out', held]]) {
    const rows = source.map((r) => ({ answerable: r.answerable, set: r.q.set, z: model.b[LANGUAGES.indexOf(r.q.lang)] + r.x.reduce((s, xi, j) => s + xi * model.w[j], 0) }));
    const areas = [rows, rows.filter((r) => !r.set), rows.filter((r) => r.set)].map((x) => (x.some((r) => !r.answerable) ? round(areaOf(curveOf(x))) : '-'));
    process.stdout.write(`${half}: area under the trade-off curve ${areas[0]} (knowledge base ${areas[1]}, document sets ${areas[2]})\n`);
  }
  const tsv = Object.entries(curves).flatMap(([half, pts]) => pts.map((p) => `${half}\t${round(p.c)}\t${round(p.answered)}\t${round(p.rejected)}`));
  writeFileSync(opt.curve.replace(/\.svg$/, '.tsv'), ['half\tcut\tanswered\trejected', ...tsv].join('\n') + '\n');
}

const SVG = { w: 420, h: 420, pad: 50 };
const COLORS = { dev: '#3366cc', 'held-out': '#dc7a1f' };

function tradeoffSvg(curves, chosen) {
  const { w, h, pad } = SVG;
  const X = (v) => pad + v * (w - 2 * pad);
  const Y = (v) => h - pad - v * (h - 2 * pad);
  const lines = Object.entries(curves).map(([half, pts]) =>
    `<polyline fill="none" stroke="${COLORS[half]}" stroke-width="2" points="${pts.map((p) => `${X(p.rejected).toFixed(1)},${Y(p.answered).toFixed(1)}`).join(' ')}"/>`);
  const marks = Object.entries(chosen).map(([half, p]) =>
    `<circle cx="${X(p.rejected).toFixed(1)}" cy="${Y(p.answered).toFixed(1)}" r="5" fill="${COLORS[half]}"/>`);
  const legend = Object.keys(curves).map((half, i) =>
    `<text x="${pad + 10}" y="${h - pad - 30 + 16 * i}" fill="${COLORS[half]}" font-size="12">${half} (dot: the chosen cut)</text>`);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) =>
    `<text x="${X(t)}" y="${h - pad + 16}" font-size="10" text-anchor="middle">${t}</text><text x="${pad - 8}" y="${Y(t) + 3}" font-size="10" text-anchor="end">${t}</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif">
<rect width="${w}" height="${h}" fill="white"/>
<rect x="${pad}" y="${pad}" width="${w - 2 * pad}" height="${h - 2 * pad}" fill="none" stroke="#999"/>
${ticks.join('\n')}
<text x="${w / 2}" y="${h - 12}" font-size="12" text-anchor="middle">unanswerable questions rejected</text>
<text x="14" y="${h / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 14 ${h / 2})">answerable questions answered</text>
<text x="${w / 2}" y="24" font-size="13" text-anchor="middle">The answerability decision as its cut moves (bench/quality)</text>
${lines.join('\n')}
${marks.join('\n')}
${legend.join('\n')}
</svg>
`;
}

await main();
