// Downloads a model's files: resumable (HTTP Range into FILE.part), retried
// when the connection drops, and sha256-verified; a file whose hash does not
// match is deleted and the command fails. Manifests that cannot pin a hash
// (sha256: null) need --allow-unpinned: the first download's hash is then
// recorded in pinned-hashes.json and every later download is checked against it.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { bodyLength } from '../../web/engine/backend.mjs';
import { downloadableFiles } from '../../web/engine/download.mjs';

async function sha256(path) {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk);
  return h.digest('hex');
}

async function downloadOnce(url, part, onBytes) {
  const have = existsSync(part) ? statSync(part).size : 0;
  const res = await fetch(url, { headers: have ? { Range: `bytes=${have}-` } : {} });
  if (res.status === 416) return; // already complete
  if (!res.ok) throw Object.assign(new Error(`${url}: HTTP ${res.status}`), { fatal: res.status >= 400 && res.status < 500 });
  const append = res.status === 206 && have > 0;
  const length = bodyLength(res);  // null: unknown, or a compressed length
  const total = length === null ? 0 : length + (append ? have : 0);
  const file = await open(part, append ? 'a' : 'w');
  let done = append ? have : 0;
  try {
    for await (const chunk of res.body) {
      await file.write(chunk);
      done += chunk.length;
      onBytes?.(done, total);
    }
  } finally {
    await file.close();
  }
  if (total && done < total) throw new Error(`${url}: connection closed at ${done} of ${total} bytes`);
}

export async function fetchFile({ url, path, sha256: expected }, { retries = 4, onBytes, log = () => {} } = {}) {
  mkdirSync(dirname(path), { recursive: true });
  const part = `${path}.part`;
  for (let attempt = 0; ; attempt++) {
    try {
      await downloadOnce(url, part, onBytes);
      break;
    } catch (err) {
      if (err.fatal || attempt >= retries) throw err;
      log(`${err.message}; resuming (${attempt + 1}/${retries})`);
      await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
    }
  }
  const got = await sha256(part);
  if (expected && got !== expected) {
    unlinkSync(part);
    throw Object.assign(new Error(`${path}: sha256 mismatch (expected ${expected}, got ${got}); the download was deleted`), { code: 'corrupt_data' });
  }
  renameSync(part, path);
  return got;
}

export async function fetchModel({ manifest, dir }, { variant = manifest.defaultVariant, allowUnpinned = false, onFile, onBytes, log } = {}) {
  const v = manifest.variants?.[variant];
  if (!v) throw new Error(`${manifest.id} has no variant '${variant}' (it has ${Object.keys(manifest.variants ?? {}).join(', ')})`);
  const pinnedPath = join(dir, 'pinned-hashes.json');
  const pinned = existsSync(pinnedPath) ? JSON.parse(readFileSync(pinnedPath, 'utf8')) : {};
  // The same files the page downloads (web/engine/download.mjs): the variant's, and a tokenizer's source.
  const files = downloadableFiles(manifest, variant);
  if (!files.length) throw new Error(`${manifest.id} (${variant}) has no downloadable files`);
  const unpinned = files.filter((f) => !f.sha256 && !pinned[f.path]);
  if (unpinned.length && !allowUnpinned) {
    throw new Error(`the manifest pins no sha256 for ${unpinned.map((f) => f.path).join(', ')}: pass --allow-unpinned to accept the first download and pin its hash`);
  }
  const results = [];
  for (const f of files) {
    const path = join(dir, f.path);
    const expected = f.sha256 ?? pinned[f.path] ?? null;
    if (existsSync(path) && expected && (await sha256(path)) === expected) {
      results.push({ path: f.path, sha256: expected, skipped: true });
      continue;
    }
    onFile?.(f);
    const got = await fetchFile({ url: f.url, path, sha256: expected }, { onBytes, log });
    if (!expected) {
      pinned[f.path] = got;
      writeFileSync(pinnedPath, JSON.stringify(pinned, null, 2) + '\n');
    }
    results.push({ path: f.path, sha256: got, skipped: false });
  }
  return results;
}
