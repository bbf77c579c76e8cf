// MCP Apps in the widget (issue 43): the MCP organisation's own app server
// (@modelcontextprotocol/server-basic-vanillajs, over stdio from mcp.json) has its get-time tool
// called by a scripted model; its app appears under the call in a sandboxed iframe, on a
// desktop and on a phone, gets the tool's result, and calls the server's tool through the
// widget and the agent (agent/appCall). A hostile app of our own (hostile-app-mcp.mjs) is
// contained: the page's DOM and cookie untouched, the top window not navigated, forged
// messages answered as its own calls only (never another server's tool), its flood cut off,
// and the page still usable. Real Chromium, the real binary, a fake model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ROOT, W, WAIT_MS, ask, newPage, startStack, waitConnected, waitIdle } from './harness.mjs';
import { lastMessage } from './fake-openai.mjs';

/** @type {Awaited<ReturnType<typeof startStack>>} */
let stack;
/** @type {string} */
let tmp;
/** @type {string} */
let hostileLog;
const SHOTS = process.env.MCP_APPS_SHOTS ?? os.tmpdir();
const TOKEN = 'console-token-for-the-mcp-apps-test';

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'byomcp-mcp-apps-'));
  hostileLog = path.join(tmp, 'hostile.log');
  await writeFile(hostileLog, '');
  const config = path.join(tmp, 'mcp.json');
  const basic = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');
  await writeFile(config, JSON.stringify({
    mcpServers: {
      basic: { command: process.execPath, args: [basic, '--stdio'], expose: ['web'] },
      hostile: { command: process.execPath, args: [path.join(ROOT, 'e2e/browser/hostile-app-mcp.mjs'), hostileLog], expose: ['web'] },
    },
  }));
  const script = (body) => {
    const last = lastMessage(body);
    if (last?.role === 'tool') return { text: 'Done.' };
    const text = String(last?.content ?? '');
    if (text.includes('hostile')) return { toolCalls: [{ name: 'hostile__show', arguments: '{}' }] };
    if (text.includes('time')) return { toolCalls: [{ name: 'basic__get-time', arguments: '{}' }] };
    return { text: 'Hello again.' };
  };
  stack = await startStack({ script, serverArgs: ['--mcp-config', config, '--console-token', TOKEN] });
  // The agent serves before its MCP servers are up (they start beside it, docs/mcp-servers.md),
  // and a call is only of tools the model was offered, those of the servers ready then; the
  // script calls basic__get-time whatever it was offered, so a first turn that came before the
  // server was ready got "unknown tool" and no app (the desktop test waited in vain for its time).
  for (const name of ['basic', 'hostile']) await stack.server.waitLog(new RegExp(`"MCP server ready","mcpServer":"${name}"`));
});

after(async () => {
  await stack?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Counts the widget's agent/appCall requests and keeps their results. */
async function spyAppCalls(page) {
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    const c = w.byomcp.client;
    const orig = c.appCall.bind(c);
    w.__appCalls = [];
    c.appCall = async (p) => {
      const r = await orig(p);
      w.__appCalls.push({ name: p.name, result: r });
      return r;
    };
  });
}

const APP = 'byomcp-chat .mcp-app';

for (const [label, viewport] of /** @type {const} */ ([['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]])) {
  test(`the basic app appears under its call and calls its server through the widget (${label})`, async () => {
    const context = await stack.browser.newContext({ viewport, isMobile: label === 'phone', hasTouch: label === 'phone' });
    try {
      const { page, errors } = await newPage(context);
      await page.goto(stack.server.url + '/');
      await waitConnected(page);
      await spyAppCalls(page);
      await ask(page, 'what time is it on the server?');
      await page.locator(W.text).filter({ hasText: 'Done.' }).waitFor();
      await waitIdle(page);
      const frame = page.frameLocator(`${APP} iframe`);
      const shown = frame.locator('#server-time');
      // The app got the tool's result (ui/notifications/tool-result): an ISO time, not "Loading...".
      await page.waitForFunction(() => true);
      await shown.filter({ hasText: /^\d{4}-\d\d-\d\dT/ }).waitFor();
      const iframe = page.locator(`${APP} iframe`);
      assert.equal(await iframe.getAttribute('sandbox'), 'allow-scripts');
      // Sized by the app (ui/notifications/size-changed), within the bounds.
      await page.waitForFunction(() => {
        const f = document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.mcp-app iframe');
        return !!f && f.getBoundingClientRect().height > 160;
      }, null, { timeout: WAIT_MS });
      const box = await iframe.boundingBox();
      assert.ok(box && box.height <= 640 && box.height <= viewport.height * 0.7 + 1, `iframe height ${box?.height}`);
      assert.ok(box && box.width <= viewport.width, `iframe width ${box?.width}`);

      // The app calls get-time through the host: agent/appCall, the server's answer shown.
      await frame.locator('#get-time-btn').click();
      await page.waitForFunction(() => /** @type {any} */ (window).__appCalls.length >= 1, null, { timeout: WAIT_MS });
      const calls = await page.evaluate(() => /** @type {any} */ (window).__appCalls);
      assert.equal(calls[0].name, 'get-time');
      const time = calls[0].result.structuredContent.time;
      await shown.filter({ hasText: time }).waitFor();

      // ui/open-link: shown as a link for the visitor to click; the page stays where it is.
      await frame.locator('#open-link-btn').click();
      const link = page.locator(`${APP} .app-ask.link a`);
      await link.waitFor();
      assert.equal(await link.getAttribute('href'), 'https://modelcontextprotocol.io/');
      assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
      assert.equal(page.url(), stack.server.url + '/');

      // ui/message: shown with Send; sent as the visitor's message only when they press it.
      await frame.locator('#message-text').fill('hello from the app');
      await frame.locator('#send-message-btn').click();
      const offer = page.locator(`${APP} .app-ask.message`);
      await offer.waitFor();
      const turnsBefore = await page.locator(W.turns).count();
      assert.match(await offer.innerText(), /hello from the app/);
      await offer.locator('button', { hasText: 'Send' }).click();
      await page.locator(W.user).filter({ hasText: 'hello from the app' }).waitFor();
      await page.locator(W.text).filter({ hasText: 'Hello again.' }).waitFor();
      await waitIdle(page);
      assert.equal(await page.locator(W.turns).count(), turnsBefore + 1);

      await page.screenshot({ path: path.join(SHOTS, `mcp-app-${label}.png`) });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test('a hostile app is contained: no page DOM, cookie or navigation; no other tool; its flood cut off', async () => {
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await page.evaluate(() => {
      document.cookie = 'byomcp_secret=s3cr3t; path=/';
      document.body.dataset.marker = 'untouched';
    });
    const titleBefore = await page.title();
    // The basic app first, so that there is another app's frame to forge messages to.
    await ask(page, 'what time is it?');
    await page.frameLocator(`${APP} iframe`).first().locator('#server-time').filter({ hasText: /^\d{4}-/ }).waitFor();
    await waitIdle(page);
    const basicTime = await page.frameLocator(`${APP} iframe`).first().locator('#server-time').innerText();

    await ask(page, 'show me the hostile card');
    await page.locator(W.text).filter({ hasText: 'Done.' }).nth(1).waitFor();
    // The app reported what it managed through its own app-only tool, then flooded.
    const deadline = Date.now() + WAIT_MS;
    let report = null;
    while (Date.now() < deadline && !report) {
      const line = (await readFile(hostileLog, 'utf8')).split('\n').find((l) => l.startsWith('report '));
      if (line) report = JSON.parse(line.slice('report '.length));
      else await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(report, 'the hostile app reported');
    for (const k of ['parentTitle', 'parentWrite', 'topTitle', 'cookie', 'localStorage', 'topNavigate']) {
      assert.match(String(report[k]), /^blocked: /, `${k}: ${report[k]}`);
    }
    assert.match(String(report.open), /^ok: null$|^blocked/, `window.open: ${report.open}`);
    // Its forged calls are its own: refused (not its server's, or model-only), or over its limit of calls at once.
    for (const k of ['call_f1', 'call_f2', 'call_f3']) assert.match(String(report[k]), /"isError":true|^error: at most/, `${k}: ${report[k]}`);

    // The flood is cut off and the app removed; the page says so.
    const stopped = page.locator(`${APP} .note`).filter({ hasText: 'This app was stopped: it sent too many messages.' });
    await stopped.waitFor();
    assert.equal(await page.locator(`${APP} iframe`).count(), 1, 'only the basic app is left');

    // The page: its DOM, cookie, title and URL as they were; no forged message was sent.
    assert.equal(await page.evaluate(() => document.body.dataset.marker), 'untouched');
    assert.equal(await page.evaluate(() => document.body.dataset.pwned), undefined);
    assert.match(await page.evaluate(() => document.cookie), /byomcp_secret=s3cr3t/);
    assert.equal(await page.title(), titleBefore);
    assert.equal(page.url(), stack.server.url + '/');
    assert.equal(await page.locator(W.user).filter({ hasText: 'FORGED' }).count(), 0);
    assert.equal(context.pages().length, 1, 'no popup');
    // The other app ignored the forged result (its own source check); the other servers' tools did not run.
    assert.equal(await page.frameLocator(`${APP} iframe`).first().locator('#server-time').innerText(), basicTime);
    assert.doesNotMatch(await readFile(hostileLog, 'utf8'), /secret ran/);

    // Still usable: the visitor asks again and gets an answer.
    await ask(page, 'and now?');
    await page.locator(W.text).filter({ hasText: 'Hello again.' }).waitFor();
    await waitIdle(page);
    await page.screenshot({ path: path.join(SHOTS, 'mcp-app-hostile.png') });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('an app whose document the agent no longer has shows a short line instead of the app', async () => {
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const { page } = await newPage(context);
    // The widget asks the real agent for another hash than the event's (as if the server had
    // changed its app since the call): the agent re-reads the resource and answers 410.
    const asked = [];
    await page.route('**/byomcp/apps/**', (route) => {
      const url = new URL(route.request().url());
      url.pathname = url.pathname.replace(/[0-9a-f]{64}$/, '0'.repeat(64));
      asked.push(url.pathname);
      return route.continue({ url: url.href });
    });
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'gone: what time is it?');
    await page.locator(W.text).filter({ hasText: 'Done.' }).waitFor();
    await page.locator(`${APP} .note`).filter({ hasText: 'This view is no longer available.' }).waitFor();
    assert.equal(await page.locator(`${APP} iframe`).count(), 0, 'the app\'s frame is removed');
    assert.deepEqual(asked, [`/byomcp/apps/basic/${'0'.repeat(64)}`]);
  } finally {
    await context.close();
  }
});

test('the console shows the app of a call read-only', async () => {
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'console: what time is it?');
    await page.locator(W.text).filter({ hasText: 'Done.' }).waitFor();
    await waitIdle(page);

    const op = await newPage(context);
    await op.page.goto(stack.server.url + '/console/');
    await op.page.locator('#token').fill(TOKEN);
    await op.page.locator('#signin-form button').click();
    await op.page.locator('#nav button[data-view="conversations"]').click();
    await op.page.locator('#q').fill('console: what time');
    await op.page.locator('#search button').click();
    await op.page.locator('#conversations tr.conversation').filter({ hasText: 'console: what time' }).first().click();
    const frame = op.page.locator('#transcript iframe.app-frame');
    await frame.waitFor();
    assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts');
    // The app got the call's result from the console's read-only host.
    await op.page.frameLocator('#transcript iframe.app-frame').locator('#server-time').filter({ hasText: /^\d{4}-\d\d-\d\dT/ }).waitFor();
    assert.match(await op.page.locator('#transcript .app .muted').first().innerText(), /app ui:\/\/get-time\/mcp-app\.html of basic \(read-only\)/);
    await op.page.screenshot({ path: path.join(SHOTS, 'mcp-app-console.png'), fullPage: true });
    assert.deepEqual(op.errors, []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('on a site with a strict Content-Security-Policy and Trusted Types, the app runs in the agent\'s frame', async () => {
  // The site allows the agent for scripts, connections and frames, and nothing inline
  // (docs/site.md); the app's inline scripts run under the app frame's own policy.
  const agent = new URL(stack.server.url);
  const policy = `default-src 'self'; script-src ${agent.origin}; connect-src ${agent.origin} ws://${agent.host}; frame-src ${agent.origin}; ` +
    "require-trusted-types-for 'script'; trusted-types byomcp";
  const site = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': policy });
    res.end(`<!doctype html><html lang="en"><head><title>Strict shop</title></head><body><h1>Strict shop</h1><script type="module" src="${agent.origin}/byomcp/widget.js"></script></body></html>`);
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', () => resolve(undefined)));
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    await context.addInitScript(() => {
      /** @type {any} */ (window).__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => /** @type {any} */ (window).__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const { page, errors } = await newPage(context);
    await page.goto(`http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (site.address()).port}/`);
    await waitConnected(page);
    await spyAppCalls(page);
    await ask(page, 'strict: what time is it?');
    const shown = page.frameLocator(`${APP} iframe`).locator('#server-time');
    await shown.filter({ hasText: /^\d{4}-\d\d-\d\dT/ }).waitFor();
    await page.frameLocator(`${APP} iframe`).locator('#get-time-btn').click();
    await page.waitForFunction(() => /** @type {any} */ (window).__appCalls.length >= 1, null, { timeout: WAIT_MS });
    const calls = await page.evaluate(() => /** @type {any} */ (window).__appCalls);
    await shown.filter({ hasText: calls[0].result.structuredContent.time }).waitFor();
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__violations), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await new Promise((resolve) => site.close(() => resolve(undefined)));
  }
});
