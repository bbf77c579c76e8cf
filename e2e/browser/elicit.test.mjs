// A server-side MCP server asks the visitor for input during a web conversation's call of its
// tool (elicitation/create; issue 38, point 3): the widget shows requestUserInput's form built
// from the server's schema under the call, the visitor fills and sends it (or declines), and
// the answer reaches the server, whose result the model reads. A reload while the form is shown
// shows it again on the reloaded page, answered once. Real Chromium, the real binary, the
// official MCP SDK's stdio server, a fake model; desktop and 360x640 phone screenshots
// (/tmp/elicit-*.png), axe on the form; the console's transcript shows the question.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT, W, WAIT_MS, ask, focusInside, messageText, newPage, seriousInWidget, startStack, toolMessagesSince, waitConnected, waitIdle } from './harness.mjs';
import { lastMessage, lastUserText } from './fake-openai.mjs';

/** @type {Awaited<ReturnType<typeof startStack>>} */
let stack;
/** @type {string} */
let tmp;
/** @type {string} */
let answersLog;

const FORM = 'byomcp-chat .input-form';
const TOKEN = 'console-token-for-the-elicit-test';

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'byomcp-elicit-'));
  answersLog = path.join(tmp, 'answers.log');
  await writeFile(answersLog, '');
  const config = path.join(tmp, 'mcp.json');
  await writeFile(config, JSON.stringify({
    mcpServers: { tables: { command: process.execPath, args: [path.join(ROOT, 'e2e/browser/elicit-mcp.mjs'), answersLog], expose: ['web'] } },
  }));
  // The model calls tables__book for each question, then says what it read.
  const script = (/** @type {any} */ body) => {
    const last = lastMessage(body);
    if (last?.role === 'tool') return { text: `Model read: ${messageText(last)}` };
    if (/sign in/.test(lastUserText(body))) return { toolCalls: [{ name: 'tables__sign_in', arguments: '{}' }] };
    return { toolCalls: [{ name: 'tables__book', arguments: '{}' }] };
  };
  stack = await startStack({ script, serverArgs: ['--mcp-config', config, '--console-token', TOKEN] });
  // A turn only reaches the tools of the MCP servers ready by then (they start beside the agent):
  // the script calls tables's tool whatever it was offered (as in mcp-apps.test.mjs).
  await stack.server.waitLog(/"MCP server ready","mcpServer":"tables"/);
});

after(async () => {
  await stack?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** The answers that reached the server, in order. */
const answers = async () => (await readFile(answersLog, 'utf8')).split('\n').filter(Boolean);

/**
 * @param {{width: number, height: number}} viewport
 * @param {boolean} [phone]
 */
async function openPage(viewport, phone = false) {
  const context = await stack.browser.newContext({ viewport, ...(phone ? { isMobile: true, hasTouch: true } : {}) });
  const { page, errors } = await newPage(context);
  await page.goto(stack.server.url + '/');
  await waitConnected(page);
  return { context, page, errors };
}

test("desktop: the server's form is shown under the call, checked, sent with Enter; the answer reaches the server and the model", async () => {
  const { context, page, errors } = await openPage({ width: 1280, height: 800 });
  try {
    const since = stack.fake.requests.length;
    const before = (await answers()).length;
    await ask(page, 'book a table');
    const form = page.locator(FORM);
    await form.waitFor();
    assert.equal(await page.locator(`${FORM} .confirm-summary`).innerText(), 'Who is the table for?');
    assert.equal(await page.locator(`${FORM} input[data-key="guests"]`).inputValue(), '2', "the server's default is filled");
    assert.deepEqual(
      await page.locator(`${FORM} .confirm-args`).evaluate((dl) => [...dl.querySelectorAll('dt')].map((dt) => dt.firstChild?.textContent)),
      ['Name', 'Guests', 'On the terrace'],
      'the required field first, then the others',
    );
    assert.ok(await focusInside(page, '.input-form'), 'the form has the focus');
    // It sits under the call it belongs to, in the running turn.
    assert.equal(await page.locator('byomcp-chat .turn').last().locator('.input-form').count(), 1);
    const name = page.locator(`${FORM} input[data-key="name"]`);
    await name.fill('J');
    assert.equal(await page.locator(`${FORM} .confirm-error:visible`).innerText(), 'At least 2 characters.');
    assert.equal(await page.locator(`${FORM} .btn-primary`).isDisabled(), true);
    await name.fill('Jane Doe');
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      assert.ok(await focusInside(page, '.input-form'), `the focus left the form after ${i + 1} Tab(s)`);
    }
    await page.screenshot({ path: '/tmp/elicit-desktop.png' });
    assert.deepEqual(await seriousInWidget(page), []);
    await name.press('Enter');
    await page.locator(W.text).filter({ hasText: 'Model read:' }).waitFor();
    await waitIdle(page);
    assert.deepEqual((await answers()).slice(before), ['accept Jane Doe'], 'the server got the answer once');
    assert.match(toolMessagesSince(stack.fake, since).join('\n'), /booked for Jane Doe, 2 guests/);
    assert.equal(await form.count(), 0, 'the form is closed once answered');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('phone: the form fits a 360x640 screen and keeps the focus; Decline reaches the server, and the model reads that the user declined', async () => {
  const { context, page, errors } = await openPage({ width: 360, height: 640 }, true);
  try {
    const since = stack.fake.requests.length;
    const before = (await answers()).length;
    await ask(page, 'book a table');
    const form = page.locator(FORM);
    await form.waitFor();
    await page.waitForFunction(() => {
      const f = document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.input-form');
      const r = f?.getBoundingClientRect();
      return !!r && r.top >= 0 && r.left >= 0 && r.right <= innerWidth;
    }, null, { timeout: WAIT_MS });
    const box = await form.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 360, `the form at ${JSON.stringify(box)} in 360x640`);
    assert.equal(await form.evaluate((f) => f.scrollWidth <= f.clientWidth), true, 'nothing in the form overflows sideways');
    assert.ok(await focusInside(page, '.input-form'));
    await page.screenshot({ path: '/tmp/elicit-phone.png' });
    assert.deepEqual(await seriousInWidget(page), []);
    await page.locator(`${FORM} .input-decline`).click();
    await page.locator(W.text).filter({ hasText: 'Model read:' }).waitFor();
    await waitIdle(page);
    assert.deepEqual((await answers()).slice(before), ['decline '], 'the server was told decline, once');
    const read = toolMessagesSince(stack.fake, since).join('\n');
    assert.match(read, /The user was asked "Who is the table for\?" and declined; the server was told decline\./);
    assert.match(read, /not booked: decline/);
    assert.deepEqual(errors, []);

    // The operator's console shows the server's question on the call, and how it ended.
    const op = await newPage(context);
    await op.page.goto(stack.server.url + '/console/');
    await op.page.locator('#token').fill(TOKEN);
    await op.page.locator('#signin-form button').click();
    await op.page.locator('#nav button[data-view="conversations"]').click();
    await op.page.locator('#conversations tr.conversation').first().click();
    const asked = op.page.locator('#transcript .asked.decline');
    await asked.waitFor();
    assert.match(await asked.innerText(), /^tables asked “Who is the table for\?” \(a form\): the visitor declined; the server was told decline · \S/);
    assert.deepEqual(op.errors, []);
  } finally {
    await context.close();
  }
});

test('a reload while the form is shown: the reloaded page shows it again, and its answer reaches the server once', async () => {
  const { context, page, errors } = await openPage({ width: 1280, height: 800 });
  try {
    const since = stack.fake.requests.length;
    const before = (await answers()).length;
    await ask(page, 'book a table');
    await page.locator(FORM).waitFor();
    await page.reload();
    await waitConnected(page);
    await page.locator(FORM).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator(`${FORM} .confirm-summary`).innerText(), 'Who is the table for?');
    assert.equal((await answers()).length, before, 'the reload did not answer the server');
    await page.locator(`${FORM} input[data-key="name"]`).fill('Ann Lee');
    await page.locator(`${FORM} .btn-primary`).click();
    await page.locator(W.text).filter({ hasText: 'Model read:' }).waitFor();
    await waitIdle(page);
    assert.deepEqual((await answers()).slice(before), ['accept Ann Lee'], 'answered once, by the reloaded page');
    const results = toolMessagesSince(stack.fake, since);
    assert.equal(results.length, 1, 'the model read one result for the call');
    assert.match(results[0], /booked for Ann Lee, 2 guests/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('URL mode: the address is shown in full and opened only by the visitor; Done tells the server accept', async () => {
  const { context, page, errors } = await openPage({ width: 1280, height: 800 });
  try {
    /** @type {string[]} */
    const popups = [];
    context.on('page', (p) => popups.push(p.url()));
    await context.route('https://shop.example/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Shop</title>' }));
    const since = stack.fake.requests.length;
    const before = (await answers()).length;
    await ask(page, 'sign in please');
    await page.locator(FORM).waitFor();
    const link = page.locator(`${FORM} a[href]`);
    assert.equal(await link.getAttribute('href'), 'https://shop.example/login?next=orders');
    assert.equal(await link.innerText(), 'https://shop.example/login?next=orders', 'the visitor sees where it goes');
    assert.equal(await page.locator(`${FORM} .confirm-summary`).innerText(), 'Sign in on the shop to see your orders.');
    assert.ok(await focusInside(page, '.input-form'));
    assert.deepEqual(await seriousInWidget(page), []);
    assert.deepEqual(popups, [], 'nothing was opened by itself');
    const [tab] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await tab.waitForLoadState();
    assert.equal(tab.url(), 'https://shop.example/login?next=orders');
    await tab.close();
    await page.screenshot({ path: '/tmp/elicit-url-desktop.png' });
    await page.locator(`${FORM} .btn-primary`).click(); // Done
    await page.locator(W.text).filter({ hasText: 'Model read:' }).waitFor();
    await waitIdle(page);
    assert.deepEqual((await answers()).slice(before), ['url accept']);
    assert.match(toolMessagesSince(stack.fake, since).join('\n'), /sign-in: accept/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
