// A page tool asks the visitor (issue 38, point 4), in real Chromium with the real binary and a
// fake model: the page's tool calls client.requestUserInput (WebMCP's user-input draft). In form
// mode the widget shows a form built from the schema (labels from titles, hints from
// descriptions, defaults filled): a wrong value shows its error and disables Send, the fixed form
// is sent with Enter and the tool's result, which the model reads next, carries the values; a
// Decline reaches the model as such, Escape cancels. In url mode the link is shown and nothing
// is opened by itself; Done accepts. The open form fits a 360x640 phone, keeps the focus, and axe
// finds no serious or critical problem in it at desktop and phone widths. A form taller than a
// 390x844 phone is never under the "new messages" pill: the pill is not shown while the focus is
// in the form and sits under the transcript while the form waits, and floats again for an
// answer once the form is gone. Screenshots: /tmp/input-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { W, WAIT_MS, ask, focusInside, focusedInView, messageText, newPage, pillOver, serveSite, seriousInWidget, startStack, toolMessagesSince, waitConnected, waitIdle } from './harness.mjs';
import { lastMessage, lastUserText } from './fake-openai.mjs';

/** @type {Awaited<ReturnType<typeof startStack>>} */
let stack;
/** @type {Awaited<ReturnType<typeof serveSite>>} */
let site;
/** @type {string} */
let siteURL;

const FORM = 'byomcp-chat .input-form';

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Driver name', minLength: 2 },
    email: { type: 'string', format: 'email', title: 'Email', description: 'We send the confirmation here' },
    years: { type: 'integer', title: 'Years of driving', minimum: 0, maximum: 80, default: 5 },
    car: { type: 'string', title: 'Car', oneOf: [{ const: 'rav4-2023', title: '2023 Toyota RAV4' }, { const: 'civic-2022', title: '2022 Honda Civic' }] },
    extras: { type: 'array', title: 'Extras', items: { anyOf: [{ const: 'child-seat', title: 'Child seat' }, { const: 'gps', title: 'Navigation' }] } },
    newsletter: { type: 'boolean', title: 'Send me offers' },
    pickup: { type: 'string', format: 'date-time', title: 'Pick-up' },
  },
  required: ['name', 'email', 'car'],
};

/** A tall form: on a phone it is several screens high. */
const LONG_SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: 14 }, (_, i) => [`line${i + 1}`, { type: 'string', title: `Address line ${i + 1}`, ...(i === 0 ? { minLength: 2 } : {}) }]),
  ),
  required: ['line1'],
};

/** The answer after the tall form: long, and streamed slowly enough to scroll up while it comes. */
const LONG_ANSWER = Array.from({ length: 150 }, (_, i) => `Delivery note ${i + 1}.`).join('\n\n');

const page = (/** @type {string} */ agent) => `<!doctype html><html lang="en"><head><title>Test drives</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script src="${agent}/byomcp/preload.js"></script>
<script type="module" src="${agent}/byomcp/widget.js"></script></head>
<body><main><h1>Test drives</h1></main>
<script type="module">
  window.answers = [];
  window.opened = [];
  const open = window.open;
  window.open = (...a) => (window.opened.push(a), open.apply(window, a));
  document.modelContext.registerTool({
    name: 'register_driver',
    title: 'Register the driver',
    description: 'Asks the visitor who will drive',
    inputSchema: { type: 'object', properties: {} },
    async execute(_args, client) {
      const a = await client.requestUserInput({ mode: 'form', message: 'Who will drive the car?', requestedSchema: ${JSON.stringify(SCHEMA)} });
      window.answers.push(a);
      return a.action === 'accept' ? 'Driver: ' + JSON.stringify(a.content) : 'The visitor answered ' + a.action + '.';
    },
  });
  window.rejected = [];
  document.modelContext.registerTool({
    name: 'two_steps',
    title: 'Two steps',
    description: 'Asks the visitor two things at once',
    inputSchema: { type: 'object', properties: {} },
    async execute(_args, client) {
      const step = (n) => client.requestUserInput({ mode: 'url', message: 'Step ' + n, url: 'https://pay.example/step' + n }).then(
        (a) => (window.answers.push(a), a.action),
        (e) => (window.rejected.push(e === client.signal.reason), 'rejected'),
      );
      return 'Steps: ' + (await Promise.all([step(1), step(2)])).join(', ');
    },
  });
  document.modelContext.registerTool({
    name: 'delivery_address',
    title: 'Delivery address',
    description: 'Asks the visitor where to deliver the car',
    inputSchema: { type: 'object', properties: {} },
    async execute(_args, client) {
      const a = await client.requestUserInput({ mode: 'form', message: 'Where do we deliver the car?', requestedSchema: ${JSON.stringify(LONG_SCHEMA)} });
      window.answers.push(a);
      return 'Address: ' + a.action + ' ' + JSON.stringify(a.content ?? {});
    },
  });
  document.modelContext.registerTool({
    name: 'pay_deposit',
    title: 'Pay the deposit',
    description: 'Sends the visitor to the payment page',
    inputSchema: { type: 'object', properties: {} },
    async execute(_args, client) {
      const a = await client.requestUserInput({ mode: 'url', message: 'Pay the 50 EUR deposit on the bank page.', url: 'https://pay.example/deposit?id=42' });
      window.answers.push(a);
      return 'Payment: ' + a.action + '.';
    },
  });
</script></body></html>`;

before(async () => {
  const script = (/** @type {any} */ body) => {
    const last = lastMessage(body);
    if (last?.role === 'tool' && /Address: /.test(messageText(last))) return { text: LONG_ANSWER, chunkSize: 12, delayMs: 20 };
    if (last?.role === 'tool') return { text: `Model read: ${messageText(last)}` };
    if (/deliver/.test(lastUserText(body))) return { toolCalls: [{ name: 'delivery_address', arguments: {} }] };
    if (/two steps/.test(lastUserText(body))) return { toolCalls: [{ name: 'two_steps', arguments: {} }] };
    if (/pay/.test(lastUserText(body))) return { toolCalls: [{ name: 'pay_deposit', arguments: {} }] };
    return { toolCalls: [{ name: 'register_driver', arguments: {} }] };
  };
  stack = await startStack({ script });
  site = await serveSite(page(stack.server.url));
  siteURL = site.url;
});

after(async () => {
  await site?.close();
  await stack?.close();
});

/**
 * @param {{width: number, height: number}} viewport
 * @param {boolean} [phone]
 */
async function openPage(viewport, phone = false) {
  // Paris: a date and time picked in local time is sent as RFC 3339 in UTC.
  const context = await stack.browser.newContext({ viewport, timezoneId: 'Europe/Paris', ...(phone ? { isMobile: true, hasTouch: true } : {}) });
  const { page, errors } = await newPage(context);
  await page.goto(siteURL);
  await waitConnected(page);
  return { context, page, errors };
}

/** The tool messages of the model's requests since request since, as text. */
const toolMessages = (/** @type {number} */ since) => toolMessagesSince(stack.fake, since);

/** Whether the focus is inside the open form. */
const focusInForm = (page) => focusInside(page, '.input-form');

/** The fields' labels, hints and starting values as the visitor reads them. */
const fieldRows = (page) =>
  page.locator(`${FORM} .confirm-args`).evaluate((dl) =>
    [...dl.querySelectorAll('dt')].map((dt) => [dt.firstChild?.textContent, dt.querySelector('small')?.textContent ?? '']),
  );

test('form mode: a wrong value shows its error and disables Send; the values sent reach the tool and the model', async () => {
  const { context, page, errors } = await openPage({ width: 1280, height: 800 });
  try {
    const since = stack.fake.requests.length;
    await ask(page, 'register me as the driver');
    const form = page.locator(FORM);
    await form.waitFor();
    assert.equal(await page.locator(`${FORM} .confirm-action`).innerText(), 'Register the driver');
    assert.equal(await page.locator(`${FORM} .confirm-summary`).innerText(), 'Who will drive the car?');
    assert.deepEqual(await fieldRows(page), [
      ['Driver name', ''],
      ['Email', 'We send the confirmation here'],
      ['Years of driving', ''],
      ['Car', ''],
      ['Extras', ''],
      ['Send me offers', ''],
      ['Pick-up', ''],
    ]);
    const name = page.locator(`${FORM} input[data-key="name"]`);
    const email = page.locator(`${FORM} input[data-key="email"]`);
    assert.equal(await page.locator(`${FORM} input[data-key="years"]`).inputValue(), '5', 'the default is filled');
    assert.ok(await focusInForm(page), 'the form has the focus');
    assert.equal(await page.locator(`${FORM} .btn-primary`).isDisabled(), true, 'Send waits for the required fields');
    // One wrong value first: its error under the field, Send disabled, Enter sends nothing.
    await name.fill('J');
    assert.equal(await page.locator(`${FORM} .confirm-error:visible`).innerText(), 'At least 2 characters.');
    assert.equal(await name.getAttribute('aria-invalid'), 'true');
    await name.press('Enter');
    assert.equal(await form.count(), 1, 'Enter does not send a wrong form');
    await name.fill('Jane Doe');
    await email.fill('jane@example');
    assert.equal(await page.locator(`${FORM} .confirm-error:visible`).innerText(), 'Enter an email address.');
    await email.fill('jane@example.com');
    await page.locator(`${FORM} select[data-key="car"]`).selectOption({ label: '2022 Honda Civic' });
    await page.locator(`${FORM} label`, { hasText: 'Navigation' }).click();
    assert.equal(await page.locator(`${FORM} input[data-key="pickup"]`).getAttribute('type'), 'datetime-local');
    await page.locator(`${FORM} input[data-key="pickup"]`).fill('2026-12-12T11:00');
    assert.equal(await page.locator(`${FORM} .btn-primary`).isDisabled(), false);
    for (let i = 0; i < 16; i++) {
      await page.keyboard.press('Tab');
      assert.ok(await focusInForm(page), `the focus left the form after ${i + 1} Tab(s)`);
    }
    await page.screenshot({ path: '/tmp/input-desktop.png' });
    assert.deepEqual(await seriousInWidget(page), []);
    await email.press('Enter'); // valid now: Enter sends

    await page.locator('byomcp-chat .assistant .text').filter({ hasText: 'Model read:' }).waitFor();
    await waitIdle(page);
    const content = { years: 5, newsletter: false, name: 'Jane Doe', email: 'jane@example.com', car: 'civic-2022', extras: ['gps'], pickup: '2026-12-12T10:00:00.000Z' };
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).answers), [{ action: 'accept', content }]);
    const tool = toolMessages(since).join('\n');
    assert.match(tool, /Driver: /);
    assert.deepEqual(JSON.parse(tool.slice(tool.indexOf('Driver: ') + 8).split('\n')[0]), content, 'the model reads the values sent');
    assert.match((await page.locator('byomcp-chat .note').allInnerTexts()).join('\n'), /You sent the details Register the driver asked for\./);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('form mode on a 360x640 phone: the form fits and keeps the focus; Decline reaches the model, Escape cancels', async () => {
  const { context, page, errors } = await openPage({ width: 360, height: 640 }, true);
  try {
    const since = stack.fake.requests.length;
    await ask(page, 'register me as the driver');
    const form = page.locator(FORM);
    await form.waitFor();
    await page.waitForFunction(() => {
      const f = document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.input-form');
      const r = f?.getBoundingClientRect();
      return !!r && r.top >= 0 && r.left >= 0 && r.right <= innerWidth;
    }, null, { timeout: WAIT_MS });
    const box = await form.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 360 && box.y >= 0, `the form at ${JSON.stringify(box)} in 360x640`);
    assert.equal(await form.evaluate((f) => f.scrollWidth <= f.clientWidth), true, 'nothing in the form overflows sideways');
    assert.ok(await focusInForm(page));
    for (let i = 0; i < 14; i++) {
      await page.keyboard.press(i % 2 ? 'Shift+Tab' : 'Tab');
      await page.keyboard.press('Tab');
      assert.ok(await focusInForm(page), `the focus left the form after ${i + 1} round(s)`);
    }
    await page.locator(`${FORM} input[data-key="name"]`).fill('J');
    await page.screenshot({ path: '/tmp/input-phone.png' });
    assert.deepEqual(await seriousInWidget(page), []);
    await page.locator(`${FORM} .input-decline`).click();
    await page.locator('byomcp-chat .assistant .text').filter({ hasText: 'Model read:' }).waitFor();
    await waitIdle(page);
    assert.match(toolMessages(since).join('\n'), /The visitor answered decline\./);

    await ask(page, 'register me again');
    await form.waitFor();
    await page.keyboard.press('Escape');
    await page.locator('byomcp-chat .assistant .text').filter({ hasText: 'Model read:' }).nth(1).waitFor();
    await waitIdle(page);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).answers), [{ action: 'decline' }, { action: 'cancel' }]);
    assert.equal(await page.locator('byomcp-chat').evaluate((el) => el.hasAttribute('open')), true, "Escape cancelled the form, it did not close the panel");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('url mode: the link is shown and nothing opens by itself; Done accepts (desktop and phone, axe)', async () => {
  for (const [viewport, phone] of /** @type {const} */ ([[{ width: 1280, height: 800 }, false], [{ width: 360, height: 640 }, true]])) {
    const { context, page, errors } = await openPage(viewport, phone);
    try {
      /** @type {string[]} */
      const popups = [];
      context.on('page', (p) => popups.push(p.url()));
      await context.route('https://pay.example/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Bank</title>' }));
      const since = stack.fake.requests.length;
      await ask(page, 'pay the deposit');
      const form = page.locator(FORM);
      await form.waitFor();
      const link = page.locator(`${FORM} a[href]`);
      assert.equal(await link.getAttribute('href'), 'https://pay.example/deposit?id=42');
      assert.equal(await link.innerText(), 'https://pay.example/deposit?id=42', 'the visitor sees where the link goes');
      assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
      assert.equal(await page.locator(`${FORM} .confirm-summary`).innerText(), 'Pay the 50 EUR deposit on the bank page.');
      assert.ok(await focusInForm(page));
      const b = await form.boundingBox();
      assert.ok(b && b.x >= 0 && b.x + b.width <= viewport.width, `the form at ${JSON.stringify(b)}`);
      await page.screenshot({ path: `/tmp/input-url-${phone ? 'phone' : 'desktop'}.png` });
      assert.deepEqual(await seriousInWidget(page), []);
      assert.deepEqual(popups, [], 'nothing was opened by itself');
      assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).opened), []);
      if (!phone) {
        // The visitor's own click opens it, in a new tab.
        const [tab] = await Promise.all([context.waitForEvent('page'), link.click()]);
        await tab.waitForLoadState();
        assert.equal(tab.url(), 'https://pay.example/deposit?id=42');
        await tab.close();
      }
      await page.locator(`${FORM} .btn-primary`).click(); // Done
      await page.locator('byomcp-chat .assistant .text').filter({ hasText: 'Model read:' }).waitFor();
      await waitIdle(page);
      assert.match(toolMessages(since).join('\n'), /Payment: accept\./);
      assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).answers), [{ action: 'accept' }]);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

test('one form at a time: a second request waits for the first; Stop withdraws the open one and rejects it with the abort reason', async () => {
  const { context, page, errors } = await openPage({ width: 1280, height: 800 });
  try {
    await ask(page, 'two steps please');
    const form = page.locator(FORM);
    await form.waitFor();
    assert.equal(await page.locator(`${FORM} .confirm-summary`).innerText(), 'Step 1');
    assert.equal(await form.count(), 1, 'the second request waits');
    await page.locator(`${FORM} .input-decline`).click();
    await page.locator(`${FORM} .confirm-summary`, { hasText: 'Step 2' }).waitFor();
    assert.equal(await form.count(), 1);
    assert.ok(await focusInForm(page), 'the next form has the focus');
    await page.locator(W.stop).click();
    await page.locator('byomcp-chat .note', { hasText: 'The request of Two steps was withdrawn.' }).waitFor();
    assert.equal(await form.count(), 0, 'the form is closed');
    await page.waitForFunction(() => /** @type {any} */ (window).rejected.length === 1, null, { timeout: WAIT_MS });
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).rejected), [true], 'rejected with the signal\'s reason');
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).answers), [{ action: 'decline' }]);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a tall form on a 390x844 phone: the "new messages" pill never covers its fields or buttons; Send is reached and clicked; the pill still comes for a new answer', async () => {
  const { context, page, errors } = await openPage({ width: 390, height: 844 }, true);
  try {
    const since = stack.fake.requests.length;
    await ask(page, 'deliver it to my home');
    const form = page.locator(FORM);
    await form.waitFor();
    await page.waitForFunction(() => document.querySelector('byomcp-chat')?.shadowRoot?.activeElement?.getAttribute('data-key') === 'line1', null, { timeout: WAIT_MS });
    assert.ok(await focusInForm(page), 'the form has the focus');
    const tall = await form.evaluate((f, h) => f.getBoundingClientRect().height > h, 844);
    assert.ok(tall, 'the form is taller than the phone');
    const first = await pillOver(page, '.input-form');
    assert.deepEqual(first.covered, [], `with the focus in the form the pill (shown: ${first.shown}) covers ${first.covered.join(', ')}`);
    assert.equal(first.shown, false, 'while the visitor is in the form the pill is not shown (what is below is the rest of the form)');
    await page.screenshot({ path: '/tmp/input-tall-phone.png' });
    // The visitor taps the message box: the focus leaves the form. There is more below, and the
    // pill says so, under the transcript, off the form.
    await page.locator(W.input).tap();
    assert.equal(await focusInForm(page), false);
    await page.locator('byomcp-chat .new-messages').waitFor({ state: 'visible' });
    const out = await pillOver(page, '.input-form');
    assert.deepEqual(out, { shown: true, position: 'static', covered: [] }, 'with the focus out of the form the pill shows, off the form');
    await page.screenshot({ path: '/tmp/input-tall-phone-pill.png' });
    // Back in the form, the visitor works down it with the keyboard: the field they are in is in
    // view and never under the pill.
    await page.locator(`${FORM} input[data-key="line1"]`).tap();
    await page.locator(`${FORM} input[data-key="line1"]`).fill('1 Main Street');
    for (let i = 0; i < 18; i++) {
      const at = await pillOver(page, '.input-form');
      assert.deepEqual(at.covered, [], `after ${i} Tab(s) the pill (shown: ${at.shown}) covers ${at.covered.join(', ')}`);
      assert.ok(await focusInForm(page), `the focus left the form after ${i} Tab(s)`);
      assert.ok(await focusedInView(page), `after ${i} Tab(s) the focused control is not in view`);
      await page.keyboard.press('Tab');
    }
    // Send: scrolled into view, not covered, clicked.
    const send = page.locator(`${FORM} .btn-primary`);
    await send.scrollIntoViewIfNeeded();
    assert.deepEqual((await pillOver(page, '.input-form')).covered, [], 'Send scrolled into view is not covered');
    await page.screenshot({ path: '/tmp/input-tall-phone-send.png' });
    await send.click();

    // The other direction: no form any more, the answer streams, the visitor scrolls up: the
    // pill comes, floating over the transcript as before, and takes them to the end.
    const text = page.locator(W.text).filter({ hasText: 'Delivery note 40.' });
    await text.waitFor();
    await page.locator('byomcp-chat .transcript').evaluate((t) => t.scrollTo({ top: 0 }));
    await page.locator('byomcp-chat .new-messages').waitFor({ state: 'visible' });
    assert.equal((await pillOver(page, '.input-form')).position, 'absolute', 'with no form waiting the pill floats over the transcript');
    await page.locator('byomcp-chat .new-messages').click();
    await waitIdle(page);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).answers), [{ action: 'accept', content: { line1: '1 Main Street' } }]);
    assert.match(toolMessages(since).join('\n'), /Address: accept \{"line1":"1 Main Street"\}/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
