// Fits the answerability decision on null-level evidence (null-evidence.mjs's
// output) and prints, per corpus and half, shown (ranked relevant and
// answered) / answered / rejected for: the product's decision; logistic fits
// on absolute features and on features minus the collection's null level,
// fitted on the knowledge base's development half or on every development half
// (each corpus weighted equally; the cut at the best answered + rejected).
import { readFileSync } from 'node:fs';
const { rows, nulls } = JSON.parse(readFileSync('build/tmp/null-evidence.json', 'utf8'));
const mean = (a) => a.reduce((x, y) => x + y, 0) / Math.max(1, a.length);
const nullOf = (c, l, f) => mean(nulls[c][l].map((e) => Number(e[f] ?? 0)));
const num = (v) => (typeof v === 'boolean' ? (v ? 1 : 0) : Number(v ?? 0));
const ABS = (r) => { const e = r.evidence; return [e.bestCosine - e.typicalCosine, e.bestLexical, e.bestMatch, e.bestMatch - e.typicalMatch, num(e.topSameLanguage), e.vocabularyCoverage, e.termCoverage]; };
const REL_F = ['bestCosine', 'bestLexical', 'bestMatch', 'vocabularyCoverage', 'termCoverage', 'topCoverageLoose'];
const REL = (r) => { const e = r.evidence; return [...REL_F.map((f) => num(e[f]) - nullOf(r.corpus, r.lang, f)), e.bestCosine - e.typicalCosine, e.bestMatch - e.typicalMatch, num(e.topSameLanguage)]; };
const BOTH = (r) => [...ABS(r), ...REL(r)];
function fit(train, feat, l2 = 0.01, iters = 3000, lr = 0.5) {
  const X = train.map(feat); const y = train.map((r) => (r.ans ? 1 : 0));
  const wts = train.map((r) => r.w);
  const d = X[0].length; const mu = Array(d).fill(0), sd = Array(d).fill(0);
  for (let j = 0; j < d; j++) { mu[j] = mean(X.map((x) => x[j])); sd[j] = Math.sqrt(mean(X.map((x) => (x[j] - mu[j]) ** 2))) || 1; }
  const Z = X.map((x) => x.map((v, j) => (v - mu[j]) / sd[j]));
  let w = Array(d).fill(0), b = 0; const W = wts.reduce((a, c) => a + c, 0);
  for (let it = 0; it < iters; it++) {
    const gw = Array(d).fill(0); let gb = 0;
    Z.forEach((z, i) => { const p = 1 / (1 + Math.exp(-(b + z.reduce((s, v, j) => s + v * w[j], 0)))); const g = (p - y[i]) * wts[i]; gb += g; z.forEach((v, j) => (gw[j] += g * v)); });
    w = w.map((v, j) => v - lr * (gw[j] / W + l2 * v)); b -= lr * gb / W;
  }
  const score = (r) => b + feat(r).reduce((s, v, j) => s + ((v - mu[j]) / sd[j]) * w[j], 0);
  // cut: maximise weighted answered + rejected on train
  const cands = train.map(score).sort((a, c) => a - c);
  let best = -Infinity, cut = 0;
  for (const t of cands) { let a = 0, aw = 0, rj = 0, rw = 0; for (const r of train) { const yes = score(r) >= t; if (r.ans) { aw += r.w; a += yes ? r.w : 0; } else { rw += r.w; rj += yes ? 0 : r.w; } } const v = a / aw + rj / rw; if (v > best) { best = v; cut = t; } }
  return (r) => score(r) >= cut;
}
const corpora = [...new Set(rows.map((r) => r.corpus))];
const weigh = (set) => { const n = {}; for (const r of set) n[r.corpus] = (n[r.corpus] ?? 0) + 1; return set.map((r) => ({ ...r, w: 1 / n[r.corpus] })); };
function report(name, decide, half = 'held-out') {
  const cells = corpora.map((c) => { const s = rows.filter((r) => r.corpus === c && r.half === half); const A = s.filter((r) => r.ans), U = s.filter((r) => !r.ans);
    const ans = mean(A.map((r) => (decide(r) ? 1 : 0))), rej = mean(U.map((r) => (decide(r) ? 0 : 1))), shown = mean(A.map((r) => (decide(r) && r.rankedRel ? 1 : 0)));
    return `${c.slice(0, 6)} ${shown.toFixed(2)}/${ans.toFixed(2)}/${rej.toFixed(2)}`; });
  console.log(name.padEnd(22), cells.join(' | '));
}
for (const half of ['dev', 'held-out']) {
  console.log(`-- ${half}: shown(ranked&answered)/answered/rejected`);
  report('product', (r) => r.answerable, half);
  const devKB = weigh(rows.filter((r) => r.half === 'dev' && r.corpus === 'kb'));
  const devAll = weigh(rows.filter((r) => r.half === 'dev'));
  report('abs fit KB', fit(devKB, ABS), half);
  report('abs fit all', fit(devAll, ABS), half);
  report('rel fit KB', fit(devKB, REL), half);
  report('rel fit all', fit(devAll, REL), half);
  report('both fit all', fit(devAll, BOTH), half);
}
