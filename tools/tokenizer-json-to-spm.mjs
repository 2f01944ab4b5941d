#!/usr/bin/env node
// Usage: tools/tokenizer-json-to-spm.mjs tokenizer.json out.model
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { convertTokenizerJson } from '../web/engine/tokenizer-convert.mjs';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  process.stderr.write('usage: tokenizer-json-to-spm.mjs tokenizer.json out.model\n');
  process.exit(2);
}
try {
  const result = convertTokenizerJson(JSON.parse(readFileSync(input, 'utf8')));
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, result.bytes);
  process.stderr.write(`${output}: ${result.type}, ${result.pieces} pieces (${result.bytes.length} bytes)\n`);
} catch (err) {
  process.stderr.write(`tokenizer-json-to-spm: ${err.message}\n`);
  process.exit(1);
}
