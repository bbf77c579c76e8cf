// Per-site configuration (issue 16): a page of a site named in --sites gets its greeting,
// suggestions and strings from the agent (GET /v1/site; the script tag's attributes win), its
// turns run with the site's instructions, and its token budget refuses a turn with a message
// the visitor reads and a metric.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startStack, recordClientEvents, newPage, ask, waitConnected, openWidget, W } from './harness.mjs';
import { lastUserText } from './fake-openai.mjs';

let stack;
let pages;
let dir;
before(async () => {
  // The pages' server first: its origin goes into sites.json. The fake model counts 120 tokens
  // per call, so a budget of 100 per conversation-hour lets one turn of one call through (it is checked before each call).
  dir = await mkdtemp(path.join(os.tmpdir(), 'byomcp-sites-'));
  const pageServer = http.createServer();
  await new Promise((resolve) => pageServer.listen(0, '127.0.0.2', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (pageServer.address());
  const origin = `http://127.0.0.2:${port}`;
  await writeFile(path.join(dir, 'sites.json'), JSON.stringify({
    sites: [{
      name: 'shop',
      origins: [origin],
      systemPrompt: 'You are the assistant of Shop. Keep answers short.',
      greeting: 'Welcome to Shop! Ask me anything.',
      suggestions: ['What is on sale?', 'Opening hours'],
      strings: { title: 'Shop helper' },
      budget: { sessionTokensPerHour: 100 },
    }],
  }));
  stack = await startStack({
    script: (body) => ({ text: `Answer to: ${lastUserText(body)}` }),
    serverArgs: ['--sites', path.join(dir, 'sites.json')],
  });
  const agent = stack.server.url;
  const widget = (attrs) => `<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Shop</h1>
<script type="module" src="${agent}/byomcp/widget.js" ${attrs}></script></body></html>`;
  pageServer.on('request', (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(req.url === '/own-title' ? widget(`data-strings='{"title":"The page title wins"}'`) : widget(''));
  });
  pages = { origin, close: () => new Promise((r) => pageServer.close(() => r(undefined))) };
});
after(async () => {
  await pages?.close();
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('the widget shows the greeting, suggestions and title of its site, from the agent', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(pages.origin + '/');
    await waitConnected(page);
    await openWidget(page);
    await page.locator('byomcp-chat .greeting').filter({ hasText: 'Welcome to Shop! Ask me anything.' }).waitFor();
    assert.deepEqual(await page.locator('byomcp-chat .suggestion').allInnerTexts(), ['What is on sale?', 'Opening hours']);
    await page.locator('byomcp-chat .title').filter({ hasText: 'Shop helper' }).waitFor();

    // The script tag's data-strings win over the site's; the rest still comes from the site.
    await page.goto(pages.origin + '/own-title');
    await waitConnected(page);
    await openWidget(page);
    await page.locator('byomcp-chat .greeting').filter({ hasText: 'Welcome to Shop!' }).waitFor();
    assert.equal(await page.locator('byomcp-chat .title').innerText(), 'The page title wins');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a turn runs with the site\'s instructions; over its token budget the next one is refused with a message and a metric', async () => {
  const context = await stack.browser.newContext();
  try {
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    await page.goto(pages.origin + '/');
    await waitConnected(page);
    const before = stack.fake.requests.length;
    await ask(page, 'first question');
    await page.locator(W.text).filter({ hasText: 'Answer to: first question' }).waitFor();
    const sent = stack.fake.requests[before].body.messages[0];
    assert.equal(sent.role, 'system');
    assert.match(sent.content, /^You are the assistant of Shop\./);

    await ask(page, 'second question');
    await page.locator(W.error).filter({ hasText: 'usage limit' }).waitFor();
    assert.equal(stack.fake.requests.length, before + 1, 'the refused turn must not reach the model');
    const metrics = await (await fetch(stack.server.url + '/metrics')).text();
    assert.match(metrics, /byomcp_refused_total\{reason="token_budget"\} 1\b/);
    assert.match(metrics, /byomcp_budget_refused_total\{scope="session",site="shop"\} 1\b/);
    assert.match(metrics, /byomcp_site_model_tokens_total\{site="shop"\} 120\b/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
