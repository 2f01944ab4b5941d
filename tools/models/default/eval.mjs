// Evaluates a model on the persona knowledge base with the development query
// set (models/default/eval/queries.tsv), through the same core, chunker and
// search the page and the CLI use. Reports BM25 alone, the model alone and
// hybrid: hit@1, hit@5, MRR@10 per language, paraphrased vs cross-lingual,
// and the out-of-domain rejection at a threshold calibrated on the queries.
//
//   node tools/models/default/eval.mjs [--model ID|DIR] [--json OUT.json] [--markdown OUT.md]
//                                      [--write-threshold]
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCore, repoRoot } from '../../cli/core.mjs';
import { nodeEmbedder, resolveModel } from '../../cli/models.mjs';
import { addChunks, chunkDocuments } from '../../../web/engine/kb.mjs';

const { values: opt } = parseArgs({
  options: {
    model: { type: 'string', default: 'default' },
    json: { type: 'string' },
    markdown: { type: 'string' },
    'write-threshold': { type: 'boolean', default: false },
    'lexical-weight': { type: 'string' },
  },
});

function readQueries(path = join(repoRoot, 'models/default/eval/queries.tsv')) {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).map((line) => {
    const [id, lang, cross, markers, question] = line.split('\t');
    return { id, lang, cross: cross === 'yes', ood: markers === '-', markers: markers === '-' ? [] : markers.split('|').map((m) => m.toLowerCase()), question };
  });
}

const relevant = (q, chunk) => q.markers.some((m) => `${chunk.title.join(' ')} ${chunk.text}`.toLowerCase().includes(m));

function rankMetrics(queries, ranked) {
  // ranked[q.id]: the labels' chunks in rank order (top 10)
  let h1 = 0, h5 = 0, mrr = 0;
  for (const q of queries) {
    const list = ranked[q.id];
    const r = list.findIndex((c) => relevant(q, c));
    if (r === 0) h1++;
    if (r >= 0 && r < 5) h5++;
    if (r >= 0 && r < 10) mrr += 1 / (r + 1);
  }
  const n = queries.length || 1;
  return { n: queries.length, hit1: h1 / n, hit5: h5 / n, mrr10: mrr / n };
}

// The best cosine each query reaches: at threshold t a query returns nothing iff best < t.
// The threshold maximises (out-of-domain questions rejected + in-domain questions still answered) / 2.
function calibrate(inDomain, ood, best) {
  const candidates = [...new Set([...inDomain, ...ood].map((q) => best[q.id]))].sort((a, b) => a - b);
  let pick = null;
  for (let i = 0; i <= candidates.length; i++) {
    const lo = i === 0 ? 0 : candidates[i - 1];
    const hi = i === candidates.length ? 1 : candidates[i];
    const t = (lo + hi) / 2;
    const rejected = ood.filter((q) => best[q.id] < t).length / ood.length;
    const kept = inDomain.filter((q) => best[q.id] >= t).length / inDomain.length;
    const score = rejected + kept;
    // Ties go to the lower threshold: losing an answer costs more than showing a weak one.
    if (!pick || score > pick.score + 1e-9) pick = { t, rejected, kept, score };
  }
  return pick;
}

async function main() {
  const core = await loadCore();
  const embedder = await nodeEmbedder(core, opt.model);
  const { manifest } = resolveModel(opt.model);
  const dir = join(repoRoot, 'web/kb/karpathy');
  const files = readdirSync(dir).filter((f) => f.endsWith('.txt')).sort();
  // The model's own evaluation: plain chunks and the summed-vector cosine,
  // through the same pipeline as the CLI (no meta marks, no calibration).
  const docs = files.map((f) => ({ source: f, text: readFileSync(join(dir, f), 'utf8') }));
  const chunks = chunkDocuments(core, docs, { tokenizer: embedder.tokenizer });
  const lexical = core.collection('eval-lexical', null);
  lexical.add(chunks);
  const db = core.collection('eval', embedder.info);
  await addChunks(db, chunks, embedder, { batch: 64, yieldEvery: false });
  const byId = new Map(db.chunks().map((c) => [c.id, c]));

  const queries = readQueries();
  const inDomain = queries.filter((q) => !q.ood);
  const ood = queries.filter((q) => q.ood);
  const qv = await embedder.embed(queries.map((q) => q.question), { kind: 'query' });
  const vec = (i) => qv.vectors.subarray(i * qv.dims, (i + 1) * qv.dims);

  const ranked = { bm25: {}, model: {}, hybrid: {} };
  const best = {};
  const results = {};
  queries.forEach((q, i) => {
    const take = (rs) => rs.map((r) => byId.get(r.id));
    ranked.bm25[q.id] = take(lexical.search(q.question, null, { k: 10, threshold: 0, mode: 'lexical' }));
    const v = db.search(q.question, vec(i), { k: 10, threshold: -1, mode: 'vector' });
    ranked.model[q.id] = take(v);
    best[q.id] = v.length ? v[0].score : -1;
    results[q.id] = db.search(q.question, vec(i), { k: 10, threshold: -1, mode: 'hybrid', ...(opt['lexical-weight'] ? { lexicalWeight: Number(opt['lexical-weight']) } : {}) });
    ranked.hybrid[q.id] = take(results[q.id]);
  });

  const groups = {
    all: inDomain,
    en: inDomain.filter((q) => q.lang === 'en'),
    pt: inDomain.filter((q) => q.lang === 'pt'),
    zh: inDomain.filter((q) => q.lang === 'zh'),
    paraphrased: inDomain.filter((q) => !q.cross),
    'cross-lingual': inDomain.filter((q) => q.cross),
  };
  const table = {};
  for (const [g, qs] of Object.entries(groups)) {
    table[g] = Object.fromEntries(Object.keys(ranked).map((m) => [m, rankMetrics(qs, ranked[m])]));
  }

  // An in-domain query keeps its answer at t if hybrid search at t still returns a relevant passage in its top 5.
  const answeredAt = (q, t) => results[q.id].filter((r) => (r.vectorScore ?? -1) >= t).slice(0, 5).some((r) => relevant(q, byId.get(r.id)));
  const full = calibrate(inDomain, ood, best);
  full.relevantKept = inDomain.filter((q) => answeredAt(q, full.t)).length / inDomain.length;
  // Two-fold check that the threshold generalises: calibrate on half the queries, measure on the other half.
  const folds = [0, 1].map((f) => {
    const pickHalf = (qs) => qs.filter((_, i) => i % 2 === f);
    const other = (qs) => qs.filter((_, i) => i % 2 !== f);
    const c = calibrate(pickHalf(inDomain), pickHalf(ood), best);
    const rejected = other(ood).filter((q) => best[q.id] < c.t).length / other(ood).length;
    const kept = other(inDomain).filter((q) => best[q.id] >= c.t).length / other(inDomain).length;
    return { t: c.t, rejected, kept };
  });
  const threshold = Math.round(full.t * 1000) / 1000;
  // Threshold-free: how often an in-domain question's best cosine beats an out-of-domain one's (ties count half).
  let wins = 0;
  for (const q of inDomain) for (const o of ood) wins += best[q.id] > best[o.id] ? 1 : best[q.id] === best[o.id] ? 0.5 : 0;
  const separation = wins / (inDomain.length * ood.length);
  const lexicalTrap = ood.filter((q) => ranked.bm25[q.id].length > 0).map((q) => q.id);
  const oodAbove = ood.filter((q) => best[q.id] >= threshold).map((q) => ({ id: q.id, best: best[q.id] }));

  const report = {
    model: manifest.id, dims: embedder.info.dims, chunks: chunks.length, queries: inDomain.length, ood: ood.length,
    table, threshold, calibration: { rejected: full.rejected, kept: full.kept, relevantKept: full.relevantKept, folds, separation }, oodAbove, lexicalTrap,
    best: Object.fromEntries(queries.map((q) => [q.id, Math.round(best[q.id] * 1000) / 1000])),
    neighbours: await neighbours(embedder),
  };
  if (opt.json) writeFileSync(opt.json, JSON.stringify(report, null, 1) + '\n');
  if (opt.markdown) writeFileSync(opt.markdown, markdown(report, queries));
  if (opt['write-threshold']) {
    const path = join(resolveModel(opt.model).dir, 'manifest.json');
    const m = JSON.parse(readFileSync(path, 'utf8'));
    m.threshold = threshold;
    writeFileSync(path, JSON.stringify(m, null, 2) + '\n');
  }
  const f = (x) => x.toFixed(2);
  for (const [g, row] of Object.entries(table)) {
    process.stdout.write(`${g.padEnd(14)} ${Object.entries(row).map(([m, r]) => `${m} ${f(r.hit1)}/${f(r.hit5)}/${f(r.mrr10)}`).join('  ')}  (n=${row.bm25.n})\n`);
  }
  process.stdout.write(`threshold ${threshold}: ood rejected ${f(full.rejected)}, in-domain answered ${f(full.kept)} (relevant in top 5: ${f(full.relevantKept)}); separation ${f(separation)}; folds ${folds.map((x) => `${f(x.t)}:${f(x.rejected)}/${f(x.kept)}`).join(' ')}\n`);
}

// Nearest neighbours of probe words among a fixed trilingual word list.
const WORDS = [
  'camera', 'câmera', '摄像头', 'car', 'carro', '汽车', 'teacher', 'professor', '老师', 'student', 'aluno', '学生',
  'computer', 'computador', '计算机', 'language', 'linguagem', '语言', 'network', 'rede', '网络', 'data', 'dados', '数据',
  'learning', 'aprendizado', '学习', 'memory', 'memória', '记忆', 'code', 'código', '代码', 'dog', 'cachorro', '狗',
  'bread', 'pão', '面包', 'weather', 'tempo', '天气', 'mountain', 'montanha', '山', 'music', 'música', '音乐',
  'road', 'estrada', '道路', 'light', 'luz', '光', 'school', 'escola', '学校', 'money', 'dinheiro', '钱',
  'laser', 'radar', '雷达', 'driver', 'motorista', '司机', 'error', 'erro', '错误', 'image', 'imagem', '图像',
];
const PROBES = ['camera', 'câmera', '摄像头', 'teacher', '学习', 'memória', 'dog', 'error'];

async function neighbours(embedder) {
  const { vectors, dims } = await embedder.embed(WORDS, { kind: 'query' });
  const at = (i) => vectors.subarray(i * dims, (i + 1) * dims);
  return PROBES.map((p) => {
    const i = WORDS.indexOf(p);
    const scored = WORDS.map((w, j) => ({ w, s: j === i ? -2 : dot(at(i), at(j)) })).sort((a, b) => b.s - a.s).slice(0, 5);
    return { probe: p, nearest: scored.map((x) => [x.w, Math.round(x.s * 100) / 100]) };
  });
}

function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function markdown(r, queries) {
  const f = (x) => x.toFixed(2);
  const dir = join(repoRoot, 'models/default');
  const size = (name) => { try { return statSync(join(dir, name)).size; } catch { return 0; } };
  const mb = (n) => (n / 1e6).toFixed(1);
  let times = null;
  try { times = JSON.parse(readFileSync(join(dir, 'eval/build-times.json'), 'utf8')); } catch { /* not rebuilt here */ }
  let train = null;
  try { train = JSON.parse(readFileSync(join(dir, 'train-log.json'), 'utf8')); } catch { /* none */ }
  const lines = [];
  const sifNote = (t) => {
    const removed = [t?.common_components && `${t.common_components} per member`, t?.joint_components && `${t.joint_components} over the whole table`].filter(Boolean);
    return `SIF weights${t?.sif_per_language ? ' from each language\'s own piece frequencies' : ''}` +
      (removed.length ? `, common components removed (${removed.join(', ')})` : '');
  };
  lines.push('# The default model: evaluation', '',
    'Generated by `node tools/models/default/eval.mjs --model models/default --markdown models/default/EVAL.md` ' +
    '(run by `bash tools/models/default/build.sh`, which rebuilds the model end to end). Everything goes through the core, ' +
    'the chunker and the search the page and the CLI use.', '',
    `- Model: \`${r.model}\`, a static model: ${train ? `${train.vocab.toLocaleString('en')} SentencePiece pieces x ${train.dims} dims, int8` : 'see manifest.json'}; ` +
    `a text's vector is the L2-normalised sum of its pieces' rows (${sifNote(train)} folded in${train?.members > 1 ? `; ${train.members} members trained from different seeds side by side, ${train.dims / train.members} dims each` : ''}). ` +
    `${train?.skipgram_members ? `${train.skipgram_members === train.members ? (train.members > 1 ? 'Each member starts' : 'It starts') : `${train.skipgram_members} of the members start`} from skip-gram vectors (co-occurrence over the same text, aligned pairs interleaved, and the knowledge base's lines), then is trained` : 'Trained'}` +
    ` contrastively on ${train ? train.pairs.toLocaleString('en') : '?'} ` +
    `examples (aligned pairs, knowledge-base pairs and question-to-passage bundles) for ${train?.epochs ?? '?'} epochs (models/default/SOURCES.md lists the sources and their licences).`,
    `- Files: tokenizer.model ${mb(size('tokenizer.model'))} MB, model.vtab ${mb(size('model.vtab'))} MB (the core's table), model.onnx ${mb(size('model.onnx'))} MB (the same model for ONNX Runtime): ` +
    `${mb(size('tokenizer.model') + size('model.vtab') + size('model.onnx'))} MB in all.`,
    times ? `- Rebuild (\`bash tools/models/default/build.sh\`): ${Math.round(times.total / 60)} min on ${times.cores} cores (fetch ${times.fetch} s, extract ${times.extract} s, knowledge-base pairs ${times.kb_pairs} s, tokenizer + training + export ${times.train} s).` : '- Rebuild time: see eval/build-times.json after a rebuild.',
    `- Knowledge base: ${r.chunks} passages of web/kb/karpathy (en, pt, zh). Queries: ${r.queries} in-domain (models/default/eval/queries.tsv: paraphrased, ` +
    `${r.table['cross-lingual'].bm25.n} of them asking in one language for content that exists only in another) and ${r.ood} the knowledge base cannot answer.`,
    '- A query is answered at rank r when the r-th passage holds one of its answer markers. Hybrid is the product\'s ranking: cosine + 0.75 x BM25 for passages in the query\'s language, the cosine alone across languages.',
    '', '## Retrieval (hit@1 / hit@5 / MRR@10)', '');
  lines.push(`| queries | n | BM25 | ${r.model} | hybrid |`, '|---|---|---|---|---|');
  for (const [g, row] of Object.entries(r.table)) {
    const cell = (m) => `${f(m.hit1)} / ${f(m.hit5)} / ${f(m.mrr10)}`;
    lines.push(`| ${g} | ${row.bm25.n} | ${cell(row.bm25)} | ${cell(row.model)} | ${cell(row.hybrid)} |`);
  }
  lines.push('', '## Out-of-domain rejection and the calibrated threshold', '', `Calibrated threshold **${r.threshold}** (cosine; hybrid search gates on it too): ` +
    `${Math.round(r.calibration.rejected * r.ood)}/${r.ood} out-of-domain questions return nothing ` +
    `(${f(r.calibration.rejected)}); ${Math.round(r.calibration.kept * r.queries)}/${r.queries} in-domain questions still return passages (${f(r.calibration.kept)}), ` +
    `and ${Math.round(r.calibration.relevantKept * r.queries)}/${r.queries} keep a relevant passage in their top 5 (${f(r.calibration.relevantKept)}).`);
  lines.push(`Separation (no threshold): an in-domain question's best cosine is above an out-of-domain one's in ${f(r.calibration.separation)} of pairs.`);
  lines.push(`Two-fold check (calibrate on half the queries, measure on the other half): ${r.calibration.folds.map((x) => `t=${f(x.t)} → rejected ${f(x.rejected)}, answered ${f(x.kept)}`).join('; ')}.`);
  lines.push(`BM25 alone returns something for ${r.lexicalTrap.length}/${r.ood} out-of-domain questions (it has no notion of "unrelated").`);
  if (r.oodAbove.length) lines.push(`Out-of-domain questions over the bar: ${r.oodAbove.map((x) => `${x.id} (${x.best.toFixed(3)})`).join(', ')}.`);
  lines.push('', '## Nearest neighbours across languages', '', 'Among a fixed list of 72 words (24 concepts in en, pt and zh), embedded alone as queries:', '', '| probe | nearest (cosine) |', '|---|---|');
  for (const n of r.neighbours) lines.push(`| ${n.probe} | ${n.nearest.map(([w, s]) => `${w} ${s.toFixed(2)}`).join(', ')} |`);
  lines.push('', '<details><summary>Best cosine per query</summary>', '', '| id | best | question |', '|---|---|---|');
  for (const q of queries) lines.push(`| ${q.id} | ${r.best[q.id].toFixed(3)} | ${q.question} |`);
  lines.push('', '</details>', '');
  // Hand-written observations kept next to the generated numbers.
  try { lines.push(readFileSync(join(dir, 'eval/notes.md'), 'utf8')); } catch { /* none */ }
  return lines.join('\n');
}

await main();
