// Headless Chromium (Debian's, driven by playwright-core) against the site
// served on 127.0.0.1. --enable-unsafe-webgpu gives a SwiftShader WebGPU
// adapter: right for correctness, meaningless for speed.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { chromium } from 'playwright-core';
import { buildSite } from '../../tools/site.mjs';
import { serve } from '../../tools/serve.mjs';
import { root } from '../node/helpers.mjs';

export const artifacts = join(root, 'build/test-artifacts');
mkdirSync(artifacts, { recursive: true });

export const CHROMIUM_ARGS = [
  '--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-quic', '--no-sandbox',
];

// tools/test.sh assembles build/site before the tests run (test files run in
// parallel, so they must not rebuild it); run alone, a test builds it once.
const siteDir = join(root, 'build/site');
export function site() {
  if (!existsSync(join(siteDir, 'index.html'))) buildSite(siteDir);
  return siteDir;
}

// extraMounts: e.g. [['/config.json', file]] to run the page with another config.
export async function startServer(port = 0, extraMounts = []) {
  const server = await serve([['/', site()], ['/tests/', join(root, 'tests/browser/pages')], ...extraMounts], { port });
  return track(server, 'close');
}

// A test that fails before closing its browser or its server would leave
// Chromium running or a socket listening, and node --test waiting on it
// forever: whatever is still open when a file's tests end is closed here.
const open = new Set();
after(() => Promise.all([...open].map(async (x) => {
  try {
    x.closeAllConnections?.();
    await x.close();
  } catch {
    // already closed or gone
  }
})));
function track(closable, closedEvent) {
  open.add(closable);
  closable.on(closedEvent, () => open.delete(closable));
  return closable;
}

export async function launch(options = {}) {
  return track(await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, ...options }), 'disconnected');
}

export async function launchPersistent(profile, options = {}) {
  return track(await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, ...options }), 'close');
}

export function urlOf(server, path) {
  return `http://127.0.0.1:${server.address().port}${path}`;
}

// Fails the test on page errors; ORT's warnings are expected noise.
export function watchConsole(page, sink = []) {
  page.on('pageerror', (e) => sink.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/onnxruntime|ort-wasm|\[W:/.test(m.text())) sink.push(`console: ${m.text()}`);
  });
  return sink;
}

// Holds every request matching `pattern` until the returned function is
// called: the page is caught mid-load however fast or loaded the machine is.
export async function holdRequests(page, pattern) {
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route(pattern, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}
