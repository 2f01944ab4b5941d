#!/usr/bin/env node
// How far an index cut into vector partitions (IVF) could go on the
// 10,000-page site of bench/pagefind/scale.mjs, before any is built: the
// passages are clustered by their vectors (spherical k-means), and for each
// question of bench/docsets we ask how many of the full search's top 10 (the
// product's hybrid ranking over the whole pack) lie in the partitions a query
// would fetch, probing the nearest `nprobe` centroids to its vector. That is
// the recall a fragment search could reach at best, and what it would cost.
//
//   node bench/pagefind/scale.mjs            (builds build/bench-pagefind-scale/site/site.pack)
//   node bench/pagefind/ivf.mjs [--lists 256] [--markdown bench/pagefind/IVF.md]
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../../tools/cli/core.mjs';
import { createEngine } from '../../web/vesper-engine.mjs';

const PACK = join(repoRoot, 'build/bench-pagefind-scale/site/site.pack');
const SETS = ['git', 'npm', 'debref-pt', 'debref-zh-cn'];
const PROBES = [1, 2, 4, 8, 16, 32];
const TRAIN_SAMPLE = 12000;
const ITERATIONS = 8;

function questions() {
  return SETS.flatMap((set) => readFileSync(join(repoRoot, `bench/docsets/${set}.questions.tsv`), 'utf8').trim().split('\n').slice(1)
    .map((line) => line.split('\t')).filter((f) => f[2] !== 'unrelated').map((f) => f[3]));
}

const dot = (a, ai, b, bi, dims) => {
  let s = 0;
  for (let d = 0; d < dims; d++) s += a[ai + d] * b[bi + d];
  return s;
};

function nearest(vectors, i, centroids, k, dims) {
  let best = -Infinity;
  let at = 0;
  for (let c = 0; c < k; c++) {
    const s = dot(vectors, i * dims, centroids, c * dims, dims);
    if (s > best) [best, at] = [s, c];
  }
  return at;
}

// Spherical k-means on a sample (deterministic: every n/sample-th passage), then every passage to its nearest centroid.
function cluster(vectors, n, dims, k) {
  const step = Math.max(1, Math.floor(n / TRAIN_SAMPLE));
  const sample = Array.from({ length: Math.floor(n / step) }, (_, i) => i * step);
  const centroids = new Float32Array(k * dims);
  sample.slice(0, k).forEach((s, c) => centroids.set(vectors.subarray(s * dims, (s + 1) * dims), c * dims));
  for (let it = 0; it < ITERATIONS; it++) {
    const sums = new Float64Array(k * dims);
    for (const s of sample) {
      const c = nearest(vectors, s, centroids, k, dims);
      for (let d = 0; d < dims; d++) sums[c * dims + d] += vectors[s * dims + d];
    }
    for (let c = 0; c < k; c++) {
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += sums[c * dims + d] ** 2;
      if (norm > 0) for (let d = 0; d < dims; d++) centroids[c * dims + d] = sums[c * dims + d] / Math.sqrt(norm);
    }
  }
  const list = new Int32Array(n);
  for (let i = 0; i < n; i++) list[i] = nearest(vectors, i, centroids, k, dims);
  return { centroids, list };
}

async function main() {
  const { values } = parseArgs({ options: { lists: { type: 'string', default: '256' }, markdown: { type: 'string' } } });
  const k = Number(values.lists);
  const engine = await createEngine({ model: join(repoRoot, 'models/default') });
  const [name] = engine.loadPack(readFileSync(PACK));
  const db = engine.require(name);
  const chunks = db.chunks();
  const dims = engine.model.dims;
  const vectors = new Float32Array(chunks.length * dims);
  chunks.forEach((c, i) => vectors.set(db.vector(c.id), i * dims));
  const index = new Map(chunks.map((c, i) => [c.id, i]));
  const t0 = performance.now();
  const { centroids, list } = cluster(vectors, chunks.length, dims, k);
  const clusterSeconds = (performance.now() - t0) / 1000;
  const sizes = new Int32Array(k);
  for (const l of list) sizes[l]++;
  const bytesPerPassage = statSync(PACK).size / chunks.length;
  const qs = questions();
  const found = Object.fromEntries(PROBES.map((p) => [p, 0]));
  const foundWithTerms = Object.fromEntries(PROBES.map((p) => [p, 0]));
  let lexicalOnly = 0;
  const bytes = Object.fromEntries(PROBES.map((p) => [p, []]));
  let total = 0;
  for (const q of qs) {
    const r = await engine.search(name, q, { k: 10 });
    const ranked = r.ranked.slice(0, 10);
    const top = ranked.map((x) => index.get(x.id));
    // Found by the words (BM25 of the query or of its translation): reachable through term postings instead.
    const byTerms = ranked.map((x) => x.lexicalRank >= 0 || x.signals.includes('translated'));
    lexicalOnly += ranked.filter((x) => x.vectorRank < 0).length;
    const qv = r.query.vector;
    const order = Array.from({ length: k }, (_, c) => c).sort((a, b) => dot(qv, 0, centroids, b * dims, dims) - dot(qv, 0, centroids, a * dims, dims));
    for (const p of PROBES) {
      const probed = new Set(order.slice(0, p));
      found[p] += top.filter((i) => probed.has(list[i])).length;
      foundWithTerms[p] += top.filter((i, j) => probed.has(list[i]) || byTerms[j]).length;
      bytes[p].push([...probed].reduce((s, c) => s + sizes[c], 0) * bytesPerPassage);
    }
    total += top.length;
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rows = PROBES.map((p) => ({ nprobe: p, recall: found[p] / total, recallWithTerms: foundWithTerms[p] / total, medianBytes: median(bytes[p]) }));
  const result = { passages: chunks.length, lists: k, clusterSeconds, questions: qs.length, bytesPerPassage, lexicalOnly: lexicalOnly / total, rows };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  if (values.markdown) writeFileSync(values.markdown, markdown(result));
  await engine.dispose();
}

function markdown(r) {
  return [
    '# Vector partitions for an index fetched on demand: what they could reach',
    '',
    'Made by `node bench/pagefind/ivf.mjs --lists ' + r.lists + ' --markdown bench/pagefind/IVF.md` on the 10,000-page site of',
    `bench/pagefind/SCALE.md (${r.passages} passages, default model). The passages are cut into ${r.lists} partitions by`,
    `spherical k-means on their vectors (${r.clusterSeconds.toFixed(1)} s in Node). For each of ${r.questions} answerable questions of bench/docsets`,
    "(en, pt, zh), \"reachable\" is the share of the full search's top 10 (the product's hybrid ranking over the whole",
    'pack) that lies in the partitions nearest the query vector: what a search over only those partitions could find at',
    'best. "Fetched" is what those partitions weigh at the pack\'s own bytes per passage (' + Math.round(r.bytesPerPassage) + ' B, uncompressed).',
    '',
    `Of the full search's top 10, ${(100 * r.lexicalOnly).toFixed(0)}% were not among the vector retriever's candidates at all (found by`,
    'the query\'s words or their translation only). "With term postings" also counts a result the words found (BM25 of',
    'the query or its translation) as reachable, as it would be through postings fetched by term (their bytes not counted).',
    '',
    '| partitions probed | reachable of the top 10 | with term postings | partitions fetched per query (median) |',
    '|---|---|---|---|',
    ...r.rows.map((x) => `| ${x.nprobe} | ${(100 * x.recall).toFixed(0)}% | ${(100 * x.recallWithTerms).toFixed(0)}% | ${(x.medianBytes / 1e3).toFixed(0)} kB |`),
    '',
    'Not built: a partitioned pack. What this says for it is in the closing note of the session that made it.',
    '',
  ].join('\n');
}

await main();
