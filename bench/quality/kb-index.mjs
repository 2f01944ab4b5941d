// The default knowledge base indexed for evaluation exactly as the CLI's
// build and the page index it (web/engine/kb.mjs): a collection with the
// model, decided by its calibration, and a lexical-only twin for BM25 alone.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../tools/cli/core.mjs';
import { addChunks, calibrate, chunkDocuments, metaTextOf } from '../../web/engine/kb.mjs';

export const KB_DIR = join(repoRoot, 'web/kb/karpathy');

export async function indexKnowledgeBase(core, embedder) {
  const files = readdirSync(KB_DIR).filter((f) => f.endsWith('.txt')).sort();
  const docs = files.map((f) => ({ source: f, text: readFileSync(join(KB_DIR, f), 'utf8') }));
  const metaText = metaTextOf(JSON.parse(readFileSync(join(KB_DIR, 'persona.json'), 'utf8')));
  const chunks = chunkDocuments(core, docs, { tokenizer: embedder.tokenizer, metaText });
  const lexical = core.collection('eval-lexical', null);
  lexical.add(chunks);
  const db = core.collection('eval', embedder.info);
  // A core from before calibrations (measuring "before" with VESPER_WASM_DIR) has nothing to equip.
  if (db.setAnswerability) calibrate(db, embedder);
  
  await addChunks(db, chunks, embedder, { batch: 64, yieldEvery: false });
  const byId = new Map(db.chunks().map((c) => [c.id, c]));
  return { core, embedder, db, lexical, chunks, byId };
}
