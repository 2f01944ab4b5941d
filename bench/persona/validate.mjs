// Checks a persona set file: ids unique, every fact alternative found verbatim
// (after folding) in the knowledge base, counts per kind.
//   node bench/persona/validate.mjs en
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fold, readPersonaSet } from './set.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const kbDir = join(root, 'web/kb/karpathy');
const kb = fold(readdirSync(kbDir).filter((f) => f.endsWith('.txt')).map((f) => readFileSync(join(kbDir, f), 'utf8')).join('\n'));
let bad = 0;
for (const lang of process.argv.slice(2)) {
  const items = readPersonaSet(root, [lang]);
  const ids = new Set();
  const counts = {};
  for (const it of items) {
    counts[it.kind] = (counts[it.kind] ?? 0) + 1;
    if (ids.has(it.id)) { console.log(`${it.id}: duplicate id`); bad++; }
    ids.add(it.id);
    for (const fact of it.facts ?? []) {
      if (!Array.isArray(fact) || !fact.length) { console.log(`${it.id}: a fact must be a non-empty list`); bad++; continue; }
      for (const alt of fact) {
        if (!kb.includes(fold(alt))) { console.log(`${it.id}: fact not in the knowledge base: ${JSON.stringify(alt)}`); bad++; }
      }
    }
    if ((it.kind === 'answerable' || it.kind === 'followups') && !(it.facts ?? []).length) { console.log(`${it.id}: no facts`); bad++; }
    if (it.kind === 'followups' && it.turns?.length !== 2) { console.log(`${it.id}: turns must be [question, followup]`); bad++; }
    if (it.kind === 'commands' && !['exit', 'reenter', 'question'].includes(it.intent)) { console.log(`${it.id}: bad intent`); bad++; }
  }
  console.log(`${lang}: ${JSON.stringify(counts)}`);
}
process.exit(bad ? 1 : 0);
