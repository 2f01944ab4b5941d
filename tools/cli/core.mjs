// The engine the CLI drives (web/vesper-engine.mjs, the page's), with the
// core from $VESPER_WASM_DIR, else the build tree.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, openCore } from '../../web/vesper-engine.mjs';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const loadCore = () => openCore();

// An engine, lexical until a model is used (tools/cli/models.mjs useModelSpec).
export const openEngine = () => createEngine({ model: null });
