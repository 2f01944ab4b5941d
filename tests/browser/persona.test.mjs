// The page's persona chat in headless Chromium, with the shipped default
// model and pack: answers cite passages that open in the search view; the
// disclaimer comes once; out-of-scope questions are declined; an exit phrase
// leaves the role and re-entry restores it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { artifacts, launch, startServer, urlOf, watchConsole } from './helpers.mjs';

let server;
before(async () => {
  server = await startServer();
});
after(() => server?.close());

async function askAndWait(page, question) {
  const before = await page.$$eval('#chat-log li.persona', (l) => l.length);
  await page.fill('#chat-input', question);
  await page.press('#chat-input', 'Enter');
  await page.waitForFunction((n) => document.querySelectorAll('#chat-log li.persona').length > n, before);
  return page.$eval('#chat-log li.persona:last-child', (li) => ({
    kind: li.dataset.kind, language: li.dataset.language, inRole: li.dataset.inRole, text: li.querySelector('.answer')?.textContent ?? li.textContent,
    cites: [...li.querySelectorAll('.answer a.cite')].map((a) => a.dataset.id),
  }));
}

test('the persona answers in the question\'s language, citing passages the search view opens', { timeout: 120_000 }, async () => {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
  const errors = watchConsole(page);
  await page.goto(urlOf(server, '/'));
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  assert.match(await page.textContent('#persona-line'), /Andrej Karpathy/);

  const en = await askAndWait(page, 'Why did Tesla decide to rely on cameras instead of LiDAR?');
  assert.equal(en.kind, 'answer');
  assert.equal(en.language, 'en');
  assert.match(en.text, /^I'm speaking from Andrej Karpathy's perspective/);
  assert.match(en.text, /\bI\b|\bmy\b/);
  assert.ok(en.cites.length > 0);
  // [n] names its passage (section and document) and opens it under the answer; a source opens it in the search view.
  const mark = `#chat-log li.persona:last-child .answer a.cite[data-id="${en.cites[0]}"]`;
  assert.match(await page.getAttribute(mark, 'title'), / · ANDREJ KARPATHY/);
  await page.click(mark);
  await page.waitForSelector('#chat-log li.persona:last-child .passage:not([hidden])');
  assert.match(await page.textContent('#chat-log li.persona:last-child .passage'), /camera|LiDAR/i);
  await page.click(mark);
  assert.equal(await page.isHidden('#chat-log li.persona:last-child .passage'), true, 'a second click hides it');
  assert.doesNotMatch(await page.textContent('#chat-log li.persona:last-child .sources'), /_[0-9a-f]{16}\.txt/, 'no hashed file names');
  await page.click(`#chat-log li.persona:last-child .sources a.cite[data-id="${en.cites[0]}"]`);
  await page.waitForSelector(`#results li#chunk-${en.cites[0]}`);
  assert.match(await page.textContent(`#results li#chunk-${en.cites[0]}`), /camera|LiDAR/i);

  const zh = await askAndWait(page, '为什么从零构建一个最小版本是理解系统最快的方法？');
  assert.equal(zh.language, 'zh');
  assert.equal(zh.kind, 'answer');
  assert.ok(!zh.text.includes('非本人观点'), 'the disclaimer is said once per conversation');
  assert.match(zh.text, /我/);

  const declined = await askAndWait(page, 'Can you write a marketing plan for my business strategy?');
  assert.equal(declined.kind, 'declined');

  const exit = await askAndWait(page, '退出');
  assert.equal(exit.kind, 'exited');
  const neutral = await askAndWait(page, 'O que é Software 2.0?');
  assert.equal(neutral.inRole, 'false');
  assert.equal(neutral.language, 'pt');
  assert.match(neutral.text, /^Da base de conhecimento/);
  const back = await askAndWait(page, 'voltar ao papel');
  assert.equal(back.kind, 'reentered');
  assert.equal(back.inRole, 'true');
  await page.screenshot({ path: join(artifacts, 'page-persona-chat.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await browser.close();
});
