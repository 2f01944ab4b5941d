// Paths and loaders shared by the node tests. The native build (build/) and
// the WASM build (build-wasm/) are made by tools/build.sh before tests run.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const nativeBuild = process.env.VESPER_BUILD ?? join(root, 'build');
export const wasmBuild = process.env.VESPER_WASM_BUILD ?? join(root, 'build-wasm');
export const kbDir = join(root, 'web/kb/karpathy');
export const testModels = join(nativeBuild, 'test-models');

export const seedFiles = readdirSync(kbDir)
  .filter((f) => f.endsWith('.txt'))
  .sort()
  .map((f) => join(kbDir, f));

export async function loadCore() {
  const { loadCore } = await import(join(wasmBuild, 'wasm/vesper.mjs'));
  return loadCore({ wasmBinary: readFileSync(join(wasmBuild, 'wasm/vesper_core.wasm')) });
}

// Runs the native reference tool and parses its JSON output.
export function native(args) {
  const out = execFileSync(join(nativeBuild, 'vesper_dump'), args, { maxBuffer: 256 << 20, encoding: 'utf8' });
  return out;
}
