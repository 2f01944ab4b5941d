// What the page shows for a query at its default settings.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../tools/cli/core.mjs';

export const SHOWN = 5;  // the results a user reads

const manifest = JSON.parse(readFileSync(join(repoRoot, 'models/default/manifest.json'), 'utf8'));

// The core's query: one answerability decision per query, results shown in
// fused order above the calibration's floor (what the engine's search does).
// A core from before the decision existed (measuring "before" with
// VESPER_WASM_DIR) gets what the page did then: hybrid k=20 at threshold 0,
// results whose cosine passed the model's calibrated threshold.
export function userView({ db }, question, vector, extra = {}) {
  if (db.query) {
    const r = db.query(question, vector, { k: 20, ...extra });
    return { shown: r.results.filter((x) => x.shown), evidence: { ...r.evidence, answerable: r.answerable, confidence: r.confidence } };
  }
  const rs = db.search(question, vector, { k: 20, threshold: 0, mode: 'hybrid' });
  return { shown: rs.filter((r) => r.score >= manifest.threshold) };
}
