// A model's files downloaded once into the browser's Cache Storage, for good:
// the files its manifest names with a URL (the Hugging Face layout), fetched
// with byte progress, cancel, and resume (HTTP Range) after an interrupted
// download; each file's size is checked against the server's and the
// manifest's, and its sha256 where the manifest pins one. The storage quota
// is checked before anything is written, and persistent storage is asked for.
// Once cached, the model loads with no network request (cachedReader).
//
//   await downloadModel(manifest, 'q8', { onProgress, signal });
//   const read = cachedReader(manifest, 'q8');   // path -> bytes, for loadModel
import { bodyLength } from './backend.mjs';
import { VesperError } from './errors.mjs';

// Finished files, keyed by their manifest URL (where they came from, not a
// mirror: one copy whatever served it). web/sw.js leaves these caches alone.
export const MODEL_CACHE = 'vesper-models';
// Pieces of downloads in progress, kept so an interrupted one resumes.
const PARTIAL_CACHE = 'vesper-models-partial';
// A running download is written in pieces of this size: what an interruption
// can lose, and the memory one download holds.
const PIECE_BYTES = 8 << 20;
// Room asked for beyond a download's size (the browser's own bookkeeping,
// the databases saved after the model's re-embedding).
const QUOTA_MARGIN = 1.1;

const mb = (n) => `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)} MB`;
const cancelled = () => new VesperError('cancelled', 'the download was cancelled; what was downloaded is kept and the next try resumes from there');

// The files of a variant that are downloaded ({ path, url, sha256, bytes,
// approxBytes }): its model files, and the tokenizer (or the tokenizer.json
// it is made from) and lexicon when the manifest gives them a URL. A model none of whose files has a URL (the
// static default) is served by the site itself: [].
export function downloadableFiles(manifest, variantName = manifest.defaultVariant) {
  const variant = manifest.variants?.[variantName];
  if (!variant && manifest.kind !== 'static') throw new VesperError('invalid_argument', `${manifest.id} has no variant '${variantName}'`);
  const files = [...(variant?.files ?? [])];
  const t = manifest.tokenizer;
  const extras = [t.url ? { ...t, path: t.file } : t.source, manifest.lexicon?.url ? { ...manifest.lexicon, path: manifest.lexicon.file } : null];
  for (const f of extras) {
    if (f?.url && !files.some((x) => x.path === f.path)) files.push({ path: f.path, url: f.url, sha256: f.sha256 ?? null, bytes: f.bytes, approxBytes: f.approxBytes });
  }
  return files.filter((f) => typeof f.url === 'string' && f.url);
}

// A variant's download size: exact where the manifest pins each size,
// else the manifest's approximate sizes (approx: true), else null.
export function downloadSize(manifest, variantName) {
  return sizeOf(downloadableFiles(manifest, variantName));
}

// { bytes, approx } of files, or null when one has no size in the manifest.
function sizeOf(files) {
  if (files.some((f) => !(f.bytes ?? f.approxBytes))) return null;
  return { bytes: files.reduce((s, f) => s + (f.bytes ?? f.approxBytes), 0), approx: files.some((f) => !f.bytes) };
}

function storageApi() {
  if (typeof caches === 'undefined') throw new VesperError('unsupported', 'this environment has no Cache Storage: models are downloaded with `vesper fetch-model` instead');
  return caches;
}

// Whether each downloadable file of a variant is cached: { files: [{ ...file,
// cached, size, partial }], complete, cachedBytes, partialBytes (of
// interrupted downloads, which resume) }.
export async function cachedState(manifest, variantName = manifest.defaultVariant) {
  const cache = await storageApi().open(MODEL_CACHE);
  const partial = await caches.open(PARTIAL_CACHE);
  const files = await Promise.all(downloadableFiles(manifest, variantName).map(async (f) => {
    const hit = await cache.match(f.url);
    const pieces = hit ? [] : await storedPieces(partial, f.url);
    return { ...f, cached: Boolean(hit), size: hit ? Number(hit.headers.get('content-length') ?? 0) : 0, partial: pieces.reduce((s, p) => s + p.blob.size, 0) };
  }));
  const sum = (k) => files.reduce((s, f) => s + f[k], 0);
  return { files, complete: files.length > 0 && files.every((f) => f.cached), cachedBytes: sum('size'), partialBytes: sum('partial') };
}

// Refuses a download the storage cannot take, before a byte is written.
async function ensureRoom(bytes, what) {
  const storage = globalThis.navigator?.storage;
  if (!storage?.estimate || !(bytes > 0)) return;
  const { usage = 0, quota = Infinity } = await storage.estimate();
  const free = Math.max(0, quota - usage);
  if (bytes * QUOTA_MARGIN > free) {
    throw new VesperError('quota_exceeded', `not enough browser storage for ${what}: it needs ${mb(bytes)}, this site may use ${mb(free)} more. Delete downloaded models or databases, or free disk space, and try again`);
  }
}

// The stored pieces of an interrupted download of `url`, in order.
// (Keyed by a query parameter: Cache Storage ignores URL fragments.)
const pieceKey = (url, index) => `${url}${url.includes('?') ? '&' : '?'}vesper-piece=${index}`;
async function storedPieces(partial, url) {
  const prefix = new URL(pieceKey(url, '')).href;
  const keys = (await partial.keys()).filter((r) => r.url.startsWith(prefix));
  const pieces = await Promise.all(keys.map(async (r) => ({ key: r, index: Number(r.url.slice(prefix.length)), blob: await (await partial.match(r)).blob() })));
  return pieces.sort((a, b) => a.index - b.index);
}

async function dropPieces(partial, pieces) {
  await Promise.all(pieces.map((p) => partial.delete(p.key)));
}

async function sha256Hex(blob) {
  const digest = await crypto.subtle.digest('SHA-256', await blob.arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

// GET from `have` bytes on; a server that ignores Range (200) restarts the file.
async function requestFrom(file, have, signal) {
  let res;
  try {
    res = await fetch(file.url, { headers: have ? { Range: `bytes=${have}-` } : {}, signal });
  } catch (err) {
    if (signal?.aborted) throw cancelled();
    throw new VesperError('network', `could not reach ${file.url} (${err.message}); the download resumes on the next try`, { cause: err });
  }
  if (res.status === 404) throw new VesperError('not_found', `${file.path} is not at ${file.url} (HTTP 404)`);
  if (!res.ok) throw new VesperError('network', `${file.url} answered HTTP ${res.status}; the download resumes on the next try`);
  return res;
}

// Streams a response into pieces of PIECE_BYTES after `pieces`; on an
// interruption or a cancel what arrived is stored first, so nothing is
// fetched twice. Resolves to the bytes received in all.
async function streamPieces(res, { partial, url, path, pieces, have, onBytes, signal }) {
  const reader = res.body.getReader();
  let buffered = [];
  let bufferedBytes = 0;
  let next = pieces.length ? pieces.at(-1).index + 1 : 0;
  const flush = async () => {
    if (!bufferedBytes) return;
    const blob = new Blob(buffered);
    await partial.put(pieceKey(url, next), new Response(blob));
    pieces.push({ key: new Request(pieceKey(url, next)), index: next++, blob });
    buffered = [];
    bufferedBytes = 0;
  };
  let done = have;
  try {
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) break;
      buffered.push(value);
      bufferedBytes += value.length;
      done += value.length;
      onBytes(done);
      if (bufferedBytes >= PIECE_BYTES) await flush();
    }
  } catch (err) {
    await flush();
    if (signal?.aborted) throw cancelled();
    throw new VesperError('network', `the download of ${path} was interrupted at ${mb(done)} (${err.message}); it resumes from there on the next try`, { cause: err });
  }
  await flush();
  return done;
}

// Downloads one file into `cache`; onBytes(done, total) as it goes.
async function downloadFile(file, { cache, partial, onBytes, signal }) {
  let pieces = await storedPieces(partial, file.url);
  let have = pieces.reduce((s, p) => s + p.blob.size, 0);
  const res = await requestFrom(file, have, signal);
  if (have && res.status !== 206) {
    await dropPieces(partial, pieces);
    pieces = [];
    have = 0;
  }
  const length = bodyLength(res);
  const total = length === null ? null : have + length;
  if (file.bytes && total !== null && total !== file.bytes) {
    await res.body?.cancel();
    throw new VesperError('corrupt_data', `${file.path} is ${total} bytes at ${file.url}, the manifest says ${file.bytes}: not downloaded`);
  }
  if (total !== null) await ensureRoom(total - have, file.path);
  const received = await streamPieces(res, { partial, url: file.url, path: file.path, pieces, have, signal, onBytes: (d) => onBytes(d, total) });
  if (total !== null && received !== total) {
    throw new VesperError('network', `the download of ${file.path} stopped at ${received} of ${total} bytes; it resumes from there on the next try`);
  }
  const blob = new Blob(pieces.map((p) => p.blob));
  const wrong = file.bytes && blob.size !== file.bytes ? `is ${blob.size} bytes, the manifest says ${file.bytes}`
    : file.sha256 && (await sha256Hex(blob)) !== file.sha256 ? `does not have the sha256 the manifest pins (${file.sha256})` : null;
  if (wrong) {
    await dropPieces(partial, pieces);
    throw new VesperError('corrupt_data', `${file.path} as downloaded from ${file.url} ${wrong}: it was deleted`);
  }
  await cache.put(file.url, new Response(blob, { headers: { 'content-length': String(blob.size), 'content-type': 'application/octet-stream' } }));
  await dropPieces(partial, pieces);
  return blob.size;
}

// Downloads what of a variant is not cached yet. onProgress({ stage:
// 'download', label, done, total, file }) with bytes over all its files
// (total null when a server does not say); signal: an AbortSignal (cancel
// keeps what arrived). Resolves to { bytes, persisted }; throws a
// VesperError: 'quota_exceeded', 'not_found', 'network', 'corrupt_data',
// 'cancelled'.
export async function downloadModel(manifest, variantName = manifest.defaultVariant, { onProgress = null, signal = null } = {}) {
  const cache = await storageApi().open(MODEL_CACHE);
  const partial = await caches.open(PARTIAL_CACHE);
  const state = await cachedState(manifest, variantName);
  const missing = state.files.filter((f) => !f.cached);
  const planned = sizeOf(missing)?.bytes ?? null;
  await ensureRoom(planned, `${manifest.name ?? manifest.id} (${variantName})`);
  // Asked once: without it the browser may evict the model under pressure.
  const persisted = await globalThis.navigator?.storage?.persist?.().catch(() => false) ?? false;
  let before = state.cachedBytes;
  for (const file of missing) {
    if (signal?.aborted) throw cancelled();
    before += await downloadFile(file, {
      cache, partial, signal,
      onBytes: (done, total) => onProgress?.({
        stage: 'download', label: `${manifest.id}: ${file.path.split('/').pop()}`, file: file.path,
        done: before + done, total: planned === null ? null : state.cachedBytes + planned,
      }),
    });
  }
  return { bytes: before, persisted };
}

// The reader loadModel takes for a downloaded variant: a manifest path ->
// its cached bytes, 'not_found' if it is not (fully) downloaded.
export function cachedReader(manifest, variantName = manifest.defaultVariant) {
  const byPath = new Map(downloadableFiles(manifest, variantName).map((f) => [f.path, f]));
  return async (path) => {
    const file = byPath.get(path);
    const hit = file && (await (await storageApi().open(MODEL_CACHE)).match(file.url));
    if (!hit) throw new VesperError('not_found', `${manifest.id}: ${path} is not downloaded`);
    return new Uint8Array(await hit.arrayBuffer());
  };
}

// Deletes every downloaded file of a model (all variants), and pieces of
// unfinished downloads. Resolves to the bytes freed.
export async function removeModel(manifest) {
  const cache = await storageApi().open(MODEL_CACHE);
  const partial = await caches.open(PARTIAL_CACHE);
  const urls = new Set(Object.keys(manifest.variants ?? {}).flatMap((v) => downloadableFiles(manifest, v).map((f) => f.url)));
  let freed = 0;
  for (const url of urls) {
    const hit = await cache.match(url);
    if (hit) freed += Number(hit.headers.get('content-length') ?? 0);
    await cache.delete(url);
    await dropPieces(partial, await storedPieces(partial, url));
  }
  return freed;
}
