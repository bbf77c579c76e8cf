// The console's transcript of a turn cut by a kill -9 after a page tool ran, on SQLite: once
// the tab resumes its session on the restarted server (which closes the turn as interrupted),
// the turn shows its interrupted line once, is marked interrupted, and its call is shown with
// its result, marked as of an interrupted turn. The console printed the line twice before.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildBinary, startServer, launchBrowser, newPage, ask, waitConnected, WAIT_MS, W } from './harness.mjs';
import { startFakeOpenAI, lastUserText, toolResultsSinceUser } from './fake-openai.mjs';

const TOKEN = 'console-token-for-the-interrupted-test';

/** @type {Array<() => Promise<void>>} */
const closers = [];
let bin = '';
let dir = '';
before(async () => {
  const built = await buildBinary();
  closers.push(built.cleanup);
  bin = built.bin;
  dir = await mkdtemp(path.join(os.tmpdir(), 'byomcp-console-interrupted-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
});
after(async () => {
  for (const c of closers.reverse()) await c().catch((err) => console.error('cleanup:', err));
});

test('a turn killed (-9) after its page tool ran shows once, marked interrupted, with its call and result', async () => {
  const fake = await startFakeOpenAI((body) => {
    if (/red SUVs/.test(lastUserText(body)) && toolResultsSinceUser(body).length === 0) {
      return { toolCalls: [{ name: 'search_cars', arguments: { bodyType: 'suv', color: 'red' } }] };
    }
    return { text: 'Here are the red SUVs, slowly...'.repeat(4), chunkSize: 1, delayMs: 1000 }; // killed meanwhile
  });
  closers.push(fake.close);
  const db = path.join(dir, 'sessions.db');
  const args = ['--store', `sqlite:${db}`, '--console-token', TOKEN];
  const first = await startServer(bin, { model: fake.url, args });
  closers.push(first.close);
  const browser = await launchBrowser();
  closers.push(() => browser.close());

  const visitor = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const { page: shop } = await newPage(visitor);
  await shop.goto(first.url + '/');
  await waitConnected(shop);
  await ask(shop, 'Show me red SUVs');
  await fake.waitFor((reqs) => reqs.length === 2, WAIT_MS); // the tool ran; the model is answering
  // The page shows a call's result once the agent sent its tool_result event, which it does
  // only once the result is stored: a kill before that loses the result, and the call is then
  // rightly shown as of unknown outcome.
  await shop.locator(`${W.tool}[data-state="ok"]`).waitFor();
  await first.kill9();

  // The same address, so the tab reconnects to it and resumes its session there.
  const second = await startServer(bin, { model: fake.url, args: [...args, '--addr', new URL(first.url).host] });
  closers.push(second.close);
  // While the server was down the widget's backoff grew (full jitter, up to 20 s, as long as
  // waitConnected waits): under CI load its next try could come too late (CI on 213b940). The
  // browser saying it is online again makes it try now, as a phone coming back does.
  await shop.evaluate(() => window.dispatchEvent(new Event('online')));
  await waitConnected(shop);

  const op = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const { page, errors } = await newPage(op);
  await page.goto(second.url + '/console/');
  await page.locator('#token').fill(TOKEN);
  await page.locator('#signin-form button').click();
  await page.locator('#nav').waitFor();
  const end = Date.now() + WAIT_MS; // the resumed session's turn is closed as it resumes
  for (;;) {
    const list = await (await op.request.get(`${second.url}/console/api/conversations?outcome=interrupted`)).json();
    if (list.length === 1) break;
    if (Date.now() > end) assert.fail(`no interrupted conversation in the console: ${JSON.stringify(list)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  await page.locator('#nav button[data-view="conversations"]').click();
  await page.locator('#search button').click();
  const row = page.locator('#conversations tr.conversation').filter({ hasText: 'Show me red SUVs' });
  await row.locator('.pill.interrupted').waitFor();
  await row.click();
  const turn = page.locator('#transcript .turn.interrupted');
  await turn.waitFor();
  await turn.locator('.who .pill.interrupted').waitFor();
  const text = await turn.innerText();
  assert.equal(text.split('This answer was interrupted').length - 1, 1, `the interrupted line once in:\n${text}`);
  const call = turn.locator('.call').filter({ hasText: 'search_cars' });
  assert.equal(await call.count(), 1);
  assert.match(await call.locator('pre.result').innerText(), /Showing \d+ cars/);
  assert.equal(await call.locator('.pill.interrupted').innerText(), 'of an interrupted turn');
  assert.deepEqual(errors, []);
  await op.close();
  await visitor.close();
});
