// Heading/passage pairs from the knowledge base, as extra training pairs for
// the default model: each chunk's heading trail against its text, and each
// passage against its neighbour in the same section, and each sentence
// against the rest of its passage (the inverse cloze task: a question-sized
// text finds the passage it came from). Chunked by the core itself, so the
// pairs are the passages search will return.
//   node kb-pairs.mjs OUT.tsv
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCore, repoRoot } from '../../cli/core.mjs';

const out = process.argv[2];
if (!out) throw new Error('usage: kb-pairs.mjs OUT.tsv');
const core = await loadCore();
const dir = join(repoRoot, 'web/kb/karpathy');
const flat = (s) => s.replace(/\s+/g, ' ').trim();
const rows = [];
for (const name of readdirSync(dir).filter((f) => f.endsWith('.txt')).sort()) {
  const chunks = core.chunk(name, readFileSync(join(dir, name), 'utf8'));
  chunks.forEach((c, i) => {
    const text = flat(c.text).slice(0, 600);
    const title = flat(c.title.at(-1) ?? '');
    if (title && text && title !== text) rows.push([title, text]);
    const sentences = c.text.split(/(?<=[.!?。！？])\s+|\n+/).map(flat).filter((x) => x.length >= 30 && /\p{L}{3}/u.test(x));
    if (sentences.length >= 3) {
      for (const sentence of sentences.slice(0, 8)) {
        const rest = flat(flat(c.text).replace(sentence, ' ')).slice(0, 600);
        rows.push([sentence.slice(0, 300), `${title} ${rest}`.trim()]);
      }
    }
    const next = chunks[i + 1];
    if (next && next.title.join('/') === c.title.join('/')) rows.push([text, flat(next.text).slice(0, 600)]);
  });
}
writeFileSync(out, rows.map((r) => r.join('\t')).join('\n') + '\n');
console.log(`kb-pairs: ${rows.length} pairs -> ${out}`);
