#!/usr/bin/env node
// The example site's <vesper-search> (build/site/example/: the default pack,
// loaded whole) from a cold cache over a throttled network: milliseconds
// from navigation to the element's vesper-ready event, per run. Chromium's
// network emulation gives the link a bandwidth and a round-trip time, as a
// visitor's would have; loopback alone hides what is downloaded in turn.
//   node tools/bench/element-timing.mjs [--runs 3] [--mbps 20] [--rtt 40] [--site DIR]
// --site: an assembled site measured as it is; without it build/site is assembled first.
import { chromium } from 'playwright-core';
import { join } from 'node:path';
import { repoRoot } from '../cli/core.mjs';
import { serve } from '../serve.mjs';
import { buildSite } from '../site.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const runs = arg('--runs', 3);
const mbps = arg('--mbps', 20);
const rtt = arg('--rtt', 40);
const siteIndex = process.argv.indexOf('--site');
const site = siteIndex > 0 ? process.argv[siteIndex + 1] : join(repoRoot, 'build/site');
if (siteIndex < 0) buildSite(site);
const server = await serve([['/', site]]);
const url = `http://127.0.0.1:${server.address().port}/example/`;
const times = [];
for (let r = 0; r < runs; r++) {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-background-networking'] });
  const page = await browser.newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const bytesPerSecond = (mbps * 1e6) / 8;
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: rtt, downloadThroughput: bytesPerSecond, uploadThroughput: bytesPerSecond });
  // Caught on its way down to the element (the event does not bubble).
  await page.addInitScript(() => window.addEventListener('vesper-ready', () => performance.mark('vesper-element-ready'), true));
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(() => performance.getEntriesByName('vesper-element-ready').length > 0, null, { timeout: 120_000, polling: 100 });
  times.push(Math.round(await page.evaluate(() => performance.getEntriesByName('vesper-element-ready')[0].startTime)));
  await browser.close();
}
server.close();
const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
process.stdout.write(`${JSON.stringify({ mbps, rttMs: rtt, runs, elementReadyMs: { median, all: times } })}\n`);
