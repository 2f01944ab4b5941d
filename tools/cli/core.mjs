// Loads the WASM core for the CLI: from $VESPER_WASM_DIR, else the build tree.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export async function loadCore() {
  const dir = process.env.VESPER_WASM_DIR ?? join(repoRoot, 'build-wasm/wasm');
  const wasm = join(dir, 'vesper_core.wasm');
  if (!existsSync(wasm)) {
    throw new Error(`WASM core not found in ${dir}: build it with tools/build.sh (or set VESPER_WASM_DIR)`);
  }
  const { loadCore } = await import(pathToFileURL(join(dir, 'vesper.mjs')).href);
  return loadCore({ wasmBinary: readFileSync(wasm) });
}
