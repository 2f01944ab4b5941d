// The API's TypeScript declarations (web/index.d.ts) type-check the site
// author's example, and reject a wrong call.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { root } from './helpers.mjs';

const tsc = (project) => promisify(execFile)(join(root, 'node_modules/.bin/tsc'), ['--noEmit', '-p', project], { cwd: root }).then(
  () => ({ code: 0, out: '' }),
  (e) => ({ code: e.code, out: e.stdout + e.stderr }),
);

test('tsc --noEmit accepts the example and refuses a wrong type', { timeout: 120_000 }, async () => {
  const ok = await tsc('tests/types');
  assert.equal(ok.code, 0, ok.out);
  // The same project with one wrong call: the declarations are really checked.
  const dir = mkdtempSync(join(root, 'build', 'types-'));
  writeFileSync(join(dir, 'example.ts'), `${readFileSync(join(root, 'tests/types/example.ts'), 'utf8')}\ncreate({ pack: 5 });\n`);
  copyFileSync(join(root, 'tests/types/tsconfig.json'), join(dir, 'tsconfig.json'));
  const bad = await tsc(dir);
  assert.notEqual(bad.code, 0);
  assert.match(bad.out, /Type 'number' is not assignable to type 'Source/);
});
