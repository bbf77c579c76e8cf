// What a site owner meets (issue 19, points 9-11; issue 40): --allowed-origins adds to the
// server's own origin (the bundled demo still connects); a refused origin is said neutrally in
// the panel, with the setting to change in the console, and not retried (a reload after the fix
// connects); the README's one-tag embed and the example of docs/site.md ("Add it to a site")
// run as pasted; scripts that run before the widget can register tools once preload.js has run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startStack, startServer, recordClientEvents, newPage, ask, waitIdle, waitConnected, W } from './harness.mjs';
import { lastUserText, toolResultsSinceUser } from './fake-openai.mjs';

function script(body) {
  if (lastUserText(body) === 'where am I?') {
    // What the model is told of the page (the system prompt names it) and the tools it is offered.
    const system = String(body.messages?.find((m) => m.role === 'system')?.content ?? '');
    const tools = (body.tools ?? []).map((t) => t.function?.name).join(', ');
    return { text: `Page: ${/embedded in (.*?)\. /.exec(system)?.[1] ?? '?'}. Tools: ${tools || 'none'}.` };
  }
  if (lastUserText(body) === 'مرحبا') return { text: 'أهلا بك! كيف أساعدك؟' };
  const results = toolResultsSinceUser(body);
  if (/SUVs/.test(lastUserText(body)) && results.length === 0) {
    return { toolCalls: [{ name: 'search_cars', arguments: { bodyType: 'suv', maxPrice: 40000 } }] };
  }
  if (results.length > 0) return { text: `The page says: ${/\n([\s\S]*)\n<\/tool_output>/.exec(results[0].content)?.[1]}` };
  return { text: `You said: ${lastUserText(body)}` };
}

/**
 * Serves one HTML page at / from another origin.
 * @param {string} host 127.0.0.1, or another loopback address (another origin)
 * @param {() => string} html
 * @param {Record<string, string>} [headers] more response headers
 */
async function servePage(host, html, headers = {}) {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...headers });
    res.end(html());
  });
  await new Promise((resolve) => server.listen(0, host, () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://${host}:${port}/`, close: () => new Promise((r) => server.close(() => r(undefined))) };
}

/**
 * Makes the pages of context note every Content-Security-Policy violation in
 * window.__violations ("directive blocked-URI sample").
 * @param {import('playwright-core').BrowserContext} context
 */
function recordViolations(context) {
  return context.addInitScript(() => {
    /** @type {any} */ (window).__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => /** @type {any} */ (window).__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
  });
}

let stack;
let strict;
before(async () => {
  // Allows only https://mine.example besides its own origin.
  stack = await startStack({ script, serverArgs: ['--allowed-origins', 'https://mine.example'] });
  const { buildBinary } = await import('./harness.mjs');
  const built = await buildBinary();
  strict = { server: await startServer(built.bin, { model: stack.fake.url }), bin: built.bin, cleanup: built.cleanup };
});
after(async () => {
  await strict?.server.close();
  await strict?.cleanup();
  await stack?.close();
});

test('--allowed-origins adds to the server\'s own origin: the bundled demo still connects', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'hello there');
    await page.locator(W.text).filter({ hasText: 'You said: hello there' }).waitFor();
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

/** A page of another origin that embeds the widget of the agent at agentURL. */
const shopPage = (agentURL) => () => `<!doctype html><html lang="en"><head><title>Another shop</title>
<script type="module" src="${agentURL}/byomcp/widget.js"></script></head><body><main><h1>Another shop</h1></main></body></html>`;

/**
 * Counts what a page asks of the agent (every socket it opens, each refused at the upgrade, and
 * every origin check) and keeps its console's errors and warnings.
 * @param {import('playwright-core').Page} page
 */
function watchAttempts(page) {
  const seen = { sockets: 0, checks: 0, /** @type {string[]} */ console: [] };
  page.on('websocket', () => seen.sockets++);
  page.on('request', (r) => r.url().includes('/v1/origin-check') && seen.checks++);
  page.on('console', (m) => ['error', 'warning'].includes(m.type()) && seen.console.push(m.text()));
  return seen;
}

test('a refused origin: visitors read a neutral sentence, the console says how to allow it, and the widget stops trying', async () => {
  // 127.0.0.2 is another origin than the server's, and not in its list.
  const site = await servePage('127.0.0.2', shopPage(stack.server.url));
  const context = await stack.browser.newContext();
  try {
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    const seen = watchAttempts(page);
    await page.goto(site.url);
    await page.locator(W.launcher).click();
    const banner = page.locator('byomcp-chat .banner');
    await banner.filter({ hasText: 'The assistant is not available on this site.' }).waitFor();
    assert.equal(await page.locator(W.status).getAttribute('data-state'), 'refused');
    assert.equal(await page.locator('byomcp-chat .status').innerText(), 'Not available');
    // A message the visitor sends anyway is answered with the same sentence, without Retry.
    await ask(page, 'hello?');
    await page.locator(W.error).filter({ hasText: 'The assistant is not available on this site.' }).waitFor();
    assert.equal(await page.locator('byomcp-chat .queued').count(), 0, 'a message that failed does not say it waits for the connection');
    assert.equal(await page.locator('byomcp-chat .error button').count(), 0, 'no Retry');
    // Nothing the visitor can see names a server setting.
    const visible = await page.locator(W.panel).innerText();
    assert.doesNotMatch(visible, /--allowed-origins|--sites|sites\.json|BYOMCP_|not allowed/, visible);
    // The developer console does, with the page's origin.
    const hint = seen.console.find((t) => /--allowed-origins/.test(t));
    assert.ok(hint, `a console message naming --allowed-origins; got:\n${seen.console.join('\n')}`);
    assert.match(hint, /127\.0\.0\.2/);
    assert.match(hint, /sites\.json/);
    // No reconnecting: one socket and one origin check, and none after what would reconnect at
    // once (the browser back online, the tab shown again), counted over a 3 s window.
    await page.evaluate(() => {
      window.dispatchEvent(new Event('online'));
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await page.waitForTimeout(3000);
    assert.deepEqual({ sockets: seen.sockets, checks: seen.checks }, { sockets: 1, checks: 1 });
    const states = await page.evaluate(() => /** @type {any} */ (window).__states);
    assert.equal(states.at(-1), 'refused');
    assert.ok(!states.includes('reconnecting'), `never "Reconnecting…": ${states}`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await site.close();
  }
});

test('a refused origin connects after the operator allows it (sites.json, SIGHUP) and the page is reloaded', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'byomcp-refused-'));
  const sitesFile = path.join(dir, 'sites.json');
  const sites = (origins) => writeFile(sitesFile, JSON.stringify({ sites: [{ name: 'shop', origins }] }));
  await sites(['https://mine.example']);
  const server = await startServer(strict.bin, { model: stack.fake.url, args: ['--sites', sitesFile] });
  const site = await servePage('127.0.0.2', shopPage(server.url));
  const context = await stack.browser.newContext();
  try {
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    const seen = watchAttempts(page);
    await page.goto(site.url);
    await page.waitForFunction(() => /** @type {any} */ (window).byomcp?.client?.state === 'refused');
    await sites(['https://mine.example', new URL(site.url).origin]);
    process.kill(/** @type {number} */ (server.pid), 'SIGHUP');
    await server.waitLog(/sites: reloaded/);
    assert.equal(seen.sockets, 1, 'the refused page did not try again by itself');
    await page.reload();
    await waitConnected(page);
    await ask(page, 'hello there');
    await page.locator(W.text).filter({ hasText: 'You said: hello there' }).waitFor();
    assert.equal(await page.locator('byomcp-chat .banner').isVisible(), false);
    assert.equal(seen.sockets, 2, 'one socket per page load');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await site.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

/** The HTML blocks of docs/site.md's "Add it to a site", up to the first bullet list. */
async function guideExample(agentURL) {
  const readme = await readFile(path.join(ROOT, 'docs', 'site.md'), 'utf8');
  const section = readme.slice(readme.indexOf('# Add it to a site'), readme.indexOf('\n- ', readme.indexOf('# Add it to a site')));
  const blocks = [...section.matchAll(/```html\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 2, 'the tags and the tool');
  const u = new URL(agentURL);
  const html = blocks.join('\n').replaceAll('wss://AGENT-HOST', `ws://${u.host}`).replaceAll('https://AGENT-HOST', `http://${u.host}`);
  return `<!doctype html><html lang="en"><head><title>Guide example</title></head><body><main>${html}</main></body></html>`;
}

/** The HTML blocks of the README's "Add it to a page": the one script tag and the form. */
async function readmeEmbed(agentURL) {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Add it to a page');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const blocks = [...section.matchAll(/```html\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 2, 'the script tag and the form');
  assert.equal(blocks[0].trim().split('\n').length, 1, 'one script tag');
  const u = new URL(agentURL);
  const html = blocks.join('\n').replaceAll('https://AGENT-HOST', `http://${u.host}`);
  return `<!doctype html><html lang="en"><head><title>README embed</title></head><body><main>${html}</main></body></html>`;
}

test("the README's one-tag embed runs as pasted: the agent fills the page's form", async () => {
  // Served from another port of 127.0.0.1: allowed by the default --allowed-origins. The tag
  // has no data-agent: the widget finds the socket on its script's host.
  const html = await readmeEmbed(strict.server.url);
  const site = await servePage('127.0.0.1', () => html);
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const { page, errors } = await newPage(context);
    await page.goto(site.url);
    await waitConnected(page);
    await ask(page, 'Show me SUVs under 40k');
    await page.locator(W.text).filter({ hasText: 'The page says:' }).waitFor();
    await waitIdle(page);
    // Filled, not sent: the visitor checks it and presses the button.
    assert.deepEqual(await page.evaluate(() => [document.querySelector('select').value, document.querySelector('input').value, location.pathname]), ['suv', '40000', '/']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await site.close();
  }
});

test("the example of docs/site.md runs as pasted", async () => {
  // Served from another port of 127.0.0.1: allowed by the default --allowed-origins.
  const html = await guideExample(strict.server.url);
  const site = await servePage('127.0.0.1', () => html);
  const context = await stack.browser.newContext();
  try {
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    await page.goto(site.url);
    await waitConnected(page);
    assert.equal(await page.locator('#cars li').count(), 3);
    await ask(page, 'Show me SUVs under 40k');
    await page.locator(W.text).filter({ hasText: 'The page says: Showing 1 cars' }).waitFor();
    await waitIdle(page);
    assert.deepEqual(await page.locator('#cars li').allInnerTexts(), ['Toyota RAV4: $31990']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await site.close();
  }
});

test('a site whose Content-Security-Policy allows no inline style gets the widget styled, floating and docked', async () => {
  // A shop's usual policy: scripts and connections to the agent allowed, styles from its own
  // origin only ('unsafe-inline' for scripts is the guide example's own inline script).
  const html = await guideExample(strict.server.url);
  const agent = new URL(strict.server.url);
  const csp = `default-src 'self'; script-src 'self' 'unsafe-inline' ${agent.origin}; connect-src 'self' ${agent.origin} ws://${agent.host}; style-src 'self'; img-src 'self' data:`;
  const site = await servePage('127.0.0.1', () => html, { 'Content-Security-Policy': csp });
  const context = await stack.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    await recordViolations(context);
    const { page, errors } = await newPage(context);
    await page.goto(site.url);
    await waitConnected(page);
    // Floating on a phone: the launcher and the open panel are fixed above the page, not in its flow.
    assert.equal(await page.locator(W.launcher).evaluate((e) => getComputedStyle(e).position), 'fixed');
    await page.locator(W.launcher).click();
    await page.locator(W.input).waitFor();
    const panel = await page.locator(W.panel).evaluate((e) => ({ position: getComputedStyle(e).position, tall: e.getBoundingClientRect().height > 400 }));
    assert.deepEqual(panel, { position: 'fixed', tall: true });
    await ask(page, 'Show me SUVs under 40k');
    await page.locator(W.text).filter({ hasText: 'The page says: Showing 1 cars' }).waitFor();
    await waitIdle(page);

    // Docked on a wide screen: the page makes room for the panel (a rule the widget adds to it).
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.waitForFunction(() => document.documentElement.classList.contains('byomcp-docked'));
    const margin = await page.evaluate(() => getComputedStyle(document.documentElement).marginRight);
    assert.ok(parseFloat(margin) >= 300, `the docked panel's room on the page: margin-right ${margin}`);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__violations), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await site.close();
  }
});

test('a site that enforces Trusted Types gets the widget through the policy "byomcp"', async () => {
  // require-trusted-types-for 'script' makes innerHTML refuse a plain string; a site that lists
  // the policies it allows (trusted-types) adds byomcp, as docs/site.md says.
  const html = await guideExample(strict.server.url);
  const site = await servePage('127.0.0.1', () => html, { 'Content-Security-Policy': "require-trusted-types-for 'script'; trusted-types byomcp" });
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    await recordViolations(context);
    const { page, errors } = await newPage(context);
    /** @type {string[]} */
    const consoleErrors = [];
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    await page.goto(site.url);
    await waitConnected(page);
    await page.locator(W.launcher).click();
    await page.locator(W.input).waitFor();
    await ask(page, 'Show me SUVs under 40k');
    await page.locator(W.text).filter({ hasText: 'The page says: Showing 1 cars' }).waitFor();
    await waitIdle(page);
    assert.deepEqual(await page.locator('#cars li').allInnerTexts(), ['Toyota RAV4: $31990']);
    // The next page (here, the same one again) restores the transcript under the same policy.
    await page.reload();
    await waitConnected(page);
    await page.locator(W.text).filter({ hasText: 'The page says: Showing 1 cars' }).waitFor();
    assert.equal(await page.locator(W.tool).count(), 1);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__violations), []);
    assert.deepEqual(errors, []);
    assert.deepEqual(consoleErrors, []);
  } finally {
    await context.close();
    await site.close();
  }
});

test('a Trusted Types policy list without "byomcp" is named in the console', async () => {
  const html = await guideExample(strict.server.url);
  const site = await servePage('127.0.0.1', () => html, { 'Content-Security-Policy': "require-trusted-types-for 'script'; trusted-types shop" });
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    /** @type {string[]} */
    const warnings = [];
    page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
    await page.goto(site.url);
    await page.waitForFunction(() => /** @type {any} */ (window)[Symbol.for('byomcp.widget')]);
    for (let i = 0; i < 50 && !warnings.some((w) => w.includes("Trusted Types policy 'byomcp' refused")); i++) await page.waitForTimeout(100);
    assert.ok(warnings.some((w) => w.includes("Trusted Types policy 'byomcp' refused")), `console warnings: ${JSON.stringify(warnings)}`);
    // The warning is all: no uncaught error (innerHTML refusing the launcher's markup), no launcher.
    await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
    assert.deepEqual(errors, []);
    assert.equal(await page.locator('byomcp-chat').count(), 0);
  } finally {
    await context.close();
    await site.close();
  }
});

test('a browser without constructable stylesheets (Safari before 16.4) gets the widget styled by <style> elements', async () => {
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    await context.addInitScript(() => {
      // @ts-ignore: as in a browser that does not have it
      delete CSSStyleSheet.prototype.replaceSync;
    });
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    assert.equal(await page.locator(W.launcher).evaluate((e) => getComputedStyle(e).position), 'fixed');
    await page.locator(W.launcher).click();
    await page.locator(W.input).waitFor();
    assert.equal(await page.locator(W.panel).evaluate((e) => getComputedStyle(e).position), 'fixed');
    await page.waitForFunction(() => document.documentElement.classList.contains('byomcp-docked'));
    const margin = await page.evaluate(() => getComputedStyle(document.documentElement).marginRight);
    assert.ok(parseFloat(margin) >= 300, `the docked panel's room on the page: margin-right ${margin}`);
    assert.equal(await page.locator('byomcp-chat').evaluate((e) => e.shadowRoot?.adoptedStyleSheets.length), 0);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a single-page app that replaces its <body> on navigation keeps the widget, and the agent is told the new page', async () => {
  // As Turbo does: the next view's <body> replaces the old one, the URL is pushed, the title
  // changes; the view's tool replaces the previous view's (its AbortSignal).
  const u = new URL(strict.server.url);
  const site = await servePage('127.0.0.1', () => `<!doctype html><html lang="en"><head><title>Inventory</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script src="http://${u.host}/byomcp/preload.js"></script>
<script type="module" src="http://${u.host}/byomcp/widget.js"></script></head>
<body style="transform: translateZ(0)"><main><h1>Inventory</h1></main>
<script type="module">
  let view = new AbortController();
  const show = (name) => ({ name, description: name.replace('_', ' '), inputSchema: { type: 'object', properties: {} }, execute: () => name });
  document.modelContext.registerTool(show('list_cars'), { signal: view.signal });
  window.visitCar = () => {
    view.abort();
    view = new AbortController();
    const body = document.createElement('body');
    body.innerHTML = '<main><h1>2023 Toyota RAV4</h1></main>';
    document.body.replaceWith(body);
    history.pushState({}, '', '/cars/rav4');
    document.title = 'RAV4';
    document.modelContext.registerTool(show('book_test_drive'), { signal: view.signal });
  };
</script></body></html>`);
  const context = await stack.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const { page, errors } = await newPage(context);
    await page.goto(site.url);
    await waitConnected(page);
    // The launcher is on screen although the <body> is transformed (it does not carry it along).
    const box = await page.locator(W.launcher).boundingBox();
    assert.ok(box && box.y + box.height <= 844 && box.y > 600, `the launcher at ${JSON.stringify(box)}`);
    await ask(page, 'where am I?');
    await page.locator(W.text).filter({ hasText: 'Tools: list_cars.' }).waitFor();
    await waitIdle(page);

    await page.evaluate(() => /** @type {any} */ (window).visitCar());
    await page.locator('h1', { hasText: 'RAV4' }).waitFor();
    assert.equal(await page.locator('byomcp-chat').evaluate((e) => e.isConnected), true, 'the widget is still on the page');
    await ask(page, 'where am I?'); // right away: the agent is told before the message
    const answer = page.locator(W.text).filter({ hasText: 'Tools: book_test_drive.' });
    await answer.waitFor();
    const text = await answer.innerText();
    assert.match(text, /"RAV4" \(http:\/\/127\.0\.0\.1:\d+\/cars\/rav4\)/);
    assert.equal(await page.locator(W.turns).count(), 2, 'the conversation went on');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await site.close();
  }
});

test('on a right-to-left page the built-in English panel reads left to right, and each message in its own direction', async () => {
  const u = new URL(strict.server.url);
  const page_ = (strings) => `<!doctype html><html lang="ar" dir="rtl"><head><title>متجر</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script type="module" src="http://${u.host}/byomcp/widget.js"${strings ? ` data-strings='${JSON.stringify(strings)}'` : ''}></script></head>
<body><main><h1>متجر السيارات</h1></main></body></html>`;
  let strings = null;
  const site = await servePage('127.0.0.1', () => page_(strings));
  const context = await stack.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const { page, errors } = await newPage(context);
    await page.goto(site.url);
    await waitConnected(page);
    const dirOf = (/** @type {import('playwright-core').Locator} */ l) => l.evaluate((e) => (e.matches(':dir(rtl)') ? 'rtl' : 'ltr'));
    await page.locator(W.launcher).click();
    assert.equal(await dirOf(page.locator(W.panel)), 'ltr', 'the English panel');
    assert.equal(await dirOf(page.locator(W.input)), 'ltr', 'the empty composer');
    await page.locator(W.input).fill('مرحبا');
    assert.equal(await dirOf(page.locator(W.input)), 'rtl', 'the composer with Arabic in it');
    await page.keyboard.press('Enter');
    const arabic = page.locator(W.text).filter({ hasText: 'أهلا بك' });
    await arabic.waitFor();
    assert.equal(await dirOf(page.locator('byomcp-chat .user').first()), 'rtl');
    assert.equal(await dirOf(arabic), 'rtl');
    await waitIdle(page);
    await ask(page, 'hello there');
    const english = page.locator(W.text).filter({ hasText: 'You said: hello there' });
    await english.waitFor();
    assert.equal(await dirOf(english), 'ltr');
    await waitIdle(page);

    // A site that translated the panel gets its page's direction.
    strings = { title: 'المساعد', inputPlaceholder: 'اسأل شيئا…' };
    await page.reload();
    await waitConnected(page);
    await page.locator(W.launcher).click().catch(() => {}); // it may have stayed open
    await page.locator(W.input).waitFor();
    assert.equal(await dirOf(page.locator(W.panel)), 'rtl', 'the translated panel');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await site.close();
  }
});

test('a script that runs before the widget registers tools once preload.js has run', async () => {
  const u = new URL(strict.server.url);
  const site = await servePage('127.0.0.1', () => `<!doctype html><html lang="en"><head><title>Early tools</title>
<script src="http://${u.host}/byomcp/preload.js"></script>
<script>
  document.modelContext.registerTool({
    name: 'early_tool', description: 'Registered by a classic script before the widget loads.',
    inputSchema: { type: 'object', properties: {} }, execute: () => 'early',
  });
</script>
<script type="module" src="http://${u.host}/byomcp/widget.js"></script></head><body><main><h1>Early</h1></main></body></html>`);
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(site.url);
    await waitConnected(page);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).byomcp.host.listTools().map((t) => t.name)), ['early_tool']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await site.close();
  }
});
