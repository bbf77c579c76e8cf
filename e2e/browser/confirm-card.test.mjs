// The confirmation card says what will happen (issue 38, points 1 and 2), in real Chromium with
// the real binary and a fake model: a consequential page tool's card shows the car's name (its
// schema's oneOf title, not its id) and the tool's own summary (_meta["byomcp/summary"]); the
// visitor edits an argument, the tool runs with the edit and the model's next request says so;
// a decline with a reason reaches the model; a declarative form named in --confirm-tools shows
// its fields as the visitor reads them (labels, the chosen option's text). The open card fits a
// 360x640 phone, keeps the focus, answers to Escape and Enter, and axe finds no serious or
// critical problem in it at desktop and phone widths. Being edited on a 390x844 phone, a card
// taller than the screen is never under the "new messages" pill. Screenshots: /tmp/card-*.png.
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

const SCHEMA = {
  type: 'object',
  properties: {
    carId: {
      type: 'string',
      title: 'Car',
      oneOf: [
        { const: 'rav4-2023', title: '2023 Toyota RAV4' },
        { const: 'civic-2022', title: '2022 Honda Civic' },
      ],
    },
    date: { type: 'string', format: 'date', title: 'Date' },
    name: { type: 'string', title: 'Name', minLength: 2 },
  },
  required: ['carId', 'date', 'name'],
  additionalProperties: false,
};

/** An order with many arguments: being edited on a phone, its card is taller than the screen. */
const ORDER_SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: 16 }, (_, i) => [`option${i + 1}`, { type: 'string', title: `Option ${i + 1}`, minLength: 2 }]),
  ),
  required: ['option1'],
  additionalProperties: false,
};
const ORDER_ARGS = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`option${i + 1}`, `choice ${i + 1}`]));

const page = (/** @type {string} */ agent) => `<!doctype html><html lang="en"><head><title>Book a test drive</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script src="${agent}/byomcp/preload.js"></script>
<script type="module" src="${agent}/byomcp/widget.js"></script></head>
<body><main><h1>Book a test drive</h1>
<form toolname="request_callback" tooldescription="Ask the dealer to call the visitor back">
  <label for="cb-car">Car</label>
  <select id="cb-car" name="car"><option value="rav4-2023">2023 Toyota RAV4</option><option value="civic-2022">2022 Honda Civic</option></select>
  <fieldset><legend>When</legend>
    <label><input type="radio" name="slot" value="am"> Morning</label>
    <label><input type="radio" name="slot" value="pm"> Afternoon</label>
  </fieldset>
  <label for="cb-name">Your name</label><input id="cb-name" name="fullName">
  <button>Send</button>
</form></main>
<script type="module">
  window.ran = [];
  document.modelContext.registerTool({
    name: 'order_car',
    title: 'Order the car',
    description: 'Orders the car with its options',
    inputSchema: ${JSON.stringify(ORDER_SCHEMA)},
    annotations: { consequentialHint: true },
    execute(args) {
      window.ran.push(args);
      return 'Ordered with ' + JSON.stringify(args) + '.';
    },
  });
  document.modelContext.registerTool({
    name: 'book_test_drive',
    title: 'Book a test drive',
    description: 'Books a test drive',
    inputSchema: ${JSON.stringify(SCHEMA)},
    annotations: { consequentialHint: true },
    _meta: { 'byomcp/summary': 'Book a test drive of the {carId} on {date} for {name}' },
    execute(args) {
      window.ran.push(args);
      return 'Booked the ' + args.carId + ' on ' + args.date + ' for ' + args.name + '.';
    },
  });
</script></body></html>`;

before(async () => {
  const script = (/** @type {any} */ body) => {
    const last = lastMessage(body);
    if (last?.role === 'tool') return { text: `Model read: ${messageText(last).split('\n').find((l) => /user|Booked|form/i.test(l)) ?? ''}` };
    const q = lastUserText(body);
    if (/order/.test(q)) return { toolCalls: [{ name: 'order_car', arguments: ORDER_ARGS }] };
    if (/callback/.test(q)) return { toolCalls: [{ name: 'request_callback', arguments: { car: 'civic-2022', slot: 'pm', fullName: 'Jane Doe' } }] };
    return { toolCalls: [{ name: 'book_test_drive', arguments: { carId: 'rav4-2023', date: '2026-12-12', name: 'Jane Doe' } }] };
  };
  stack = await startStack({ script, serverArgs: ['--confirm-tools', 'request_callback'] });
  // The page comes from a server of its own on the loopback (an allowed origin by default).
  site = await serveSite(page(stack.server.url));
  siteURL = site.url;
});

after(async () => {
  await site?.close();
  await stack?.close();
});

/**
 * Opens the test's page in a new context.
 * @param {{width: number, height: number}} viewport
 * @param {boolean} [phone]
 */
async function openPage(viewport, phone = false) {
  const context = await stack.browser.newContext(phone ? { viewport, isMobile: true, hasTouch: true } : { viewport });
  const { page, errors } = await newPage(context);
  await page.goto(siteURL);
  await waitConnected(page);
  return { context, page, errors };
}

/** The tool messages of the model's requests since request since, as text. */
const toolMessages = (/** @type {number} */ since) => toolMessagesSince(stack.fake, since);

/** Whether the focus is inside the open card. */
const focusInCard = (page) => focusInside(page, '.confirm');

test('the card names the car and gives the summary; the visitor edits the date and the model learns it', async () => {
  const { context, page, errors } = await openPage({ width: 1280, height: 800 });
  try {
    const since = stack.fake.requests.length;
    await ask(page, 'book a test drive of the RAV4');
    const card = page.locator(W.confirm);
    await card.waitFor();
    assert.equal(await page.locator(`${W.confirm} .confirm-action`).innerText(), 'Book a test drive');
    assert.equal(await page.locator(`${W.confirm} .confirm-summary`).innerText(), 'Book a test drive of the 2023 Toyota RAV4 on 2026-12-12 for Jane Doe');
    assert.equal(await page.locator(`${W.confirm} dd[data-key="carId"]`).innerText(), '2023 Toyota RAV4', 'the car by its name, not its id');
    assert.ok(await focusInCard(page), 'the card has the focus');
    await page.screenshot({ path: '/tmp/card-desktop.png' });
    assert.deepEqual(await seriousInWidget(page), []);

    await page.locator(`${W.confirm} .confirm-edit`).click();
    const date = page.locator(`${W.confirm} input[data-key="date"]`);
    const name = page.locator(`${W.confirm} input[data-key="name"]`);
    const car = page.locator(`${W.confirm} select[data-key="carId"]`);
    assert.equal(await car.locator('option:checked').innerText(), '2023 Toyota RAV4');
    // An edit that breaks the schema: the error under the field, Confirm disabled, Enter does nothing.
    await name.fill('J');
    assert.equal(await page.locator(`${W.confirm} .confirm-error:visible`).innerText(), 'At least 2 characters.');
    assert.equal(await page.locator(W.confirmOk).isDisabled(), true);
    assert.equal(await name.getAttribute('aria-invalid'), 'true');
    await name.press('Enter');
    assert.equal(await card.count(), 1, 'Enter does not confirm invalid arguments');
    await name.fill('Jane Doe');
    assert.equal(await page.locator(W.confirmOk).isDisabled(), false);
    await date.fill('2026-12-19');
    assert.equal(await page.locator(`${W.confirm} .confirm-summary`).innerText(), 'Book a test drive of the 2023 Toyota RAV4 on 2026-12-19 for Jane Doe', 'the summary follows the edit');
    // Tab cycles inside the card.
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      assert.ok(await focusInCard(page), `the focus left the card after ${i + 1} Tab(s)`);
    }
    await page.screenshot({ path: '/tmp/card-desktop-edit.png' });
    assert.deepEqual(await seriousInWidget(page), []);
    await date.press('Enter'); // valid now: Enter confirms

    await page.locator(W.text).filter({ hasText: 'Model read:' }).waitFor();
    await waitIdle(page);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).ran), [{ carId: 'rav4-2023', date: '2026-12-19', name: 'Jane Doe' }]);
    const tool = toolMessages(since).join('\n');
    assert.match(tool, /The user changed the arguments before confirming: date from "2026-12-12" to "2026-12-19"\. The tool ran with the user's arguments\./);
    assert.match(tool, /Booked the rav4-2023 on 2026-12-19 for Jane Doe\./);
    assert.match(await page.locator(W.note).allInnerTexts().then((t) => t.join('\n')), /You allowed Book a test drive with your changes\./);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('on a 360x640 phone the card fits and keeps the focus; a decline with a reason reaches the model', async () => {
  const { context, page, errors } = await openPage({ width: 360, height: 640 }, true);
  try {
    const since = stack.fake.requests.length;
    await ask(page, 'book a test drive of the RAV4');
    const card = page.locator(W.confirm);
    await card.waitFor();
    await page.waitForFunction(() => {
      const c = document.querySelector('byomcp-chat')?.shadowRoot?.querySelector('.confirm');
      const r = c?.getBoundingClientRect();
      return !!r && r.top >= 0 && r.bottom <= innerHeight;
    }, null, { timeout: WAIT_MS });
    const box = await card.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 360 && box.y >= 0 && box.y + box.height <= 640, `the card at ${JSON.stringify(box)} in 360x640`);
    assert.equal(await card.evaluate((c) => c.scrollWidth <= c.clientWidth), true, 'nothing in the card overflows sideways');
    assert.ok(await focusInCard(page));
    await page.screenshot({ path: '/tmp/card-phone.png' });
    assert.deepEqual(await seriousInWidget(page), []);

    await page.locator(`${W.confirm} .confirm-edit`).click();
    const editBox = await card.boundingBox();
    assert.ok(editBox && editBox.x >= 0 && editBox.x + editBox.width <= 360, `the card being edited at ${JSON.stringify(editBox)}`);
    assert.equal(await card.evaluate((c) => c.scrollWidth <= c.clientWidth), true);
    await page.screenshot({ path: '/tmp/card-phone-edit.png' });
    assert.deepEqual(await seriousInWidget(page), []);

    await page.locator(`${W.confirm} .confirm-why summary`).click();
    const reason = page.locator(`${W.confirm} .confirm-why input`);
    await reason.fill('I would rather see the Civic first');
    await page.screenshot({ path: '/tmp/card-phone-reason.png' });
    assert.deepEqual(await seriousInWidget(page), []);
    await reason.press('Escape'); // Escape declines, with the reason typed

    await page.locator(W.text).filter({ hasText: 'Model read:' }).waitFor();
    await waitIdle(page);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).ran), [], 'the declined tool did not run');
    const tool = toolMessages(since).join('\n');
    assert.match(tool, /The user declined to run book_test_drive\.\nThe user's reason: I would rather see the Civic first/);
    assert.match(await page.locator(W.note).allInnerTexts().then((t) => t.join('\n')), /You declined Book a test drive: I would rather see the Civic first/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a declarative form named in --confirm-tools: the card shows its labels and the chosen options as the visitor reads them', async () => {
  const { context, page, errors } = await openPage({ width: 1280, height: 800 });
  try {
    await ask(page, 'ask for a callback');
    await page.locator(W.confirm).waitFor();
    const rows = await page.locator(`${W.confirm} .confirm-args`).evaluate((dl) =>
      [...dl.querySelectorAll('dd')].map((dd) => [/** @type {HTMLElement} */ (dd.previousElementSibling).firstChild?.textContent, dd.textContent]),
    );
    assert.deepEqual(rows, [
      ['Car', '2022 Honda Civic'],
      ['When', 'Afternoon'],
      ['Your name', 'Jane Doe'],
    ]);
    await page.screenshot({ path: '/tmp/card-form.png' });
    await page.keyboard.press('Enter'); // the card has the focus: Enter confirms
    await page.locator(W.text).filter({ hasText: 'Model read:' }).waitFor();
    await waitIdle(page);
    assert.equal(await page.locator('#cb-car').inputValue(), 'civic-2022', 'the form was filled');
    assert.equal(await page.locator('input[name="slot"][value="pm"]').isChecked(), true);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a reload while the card asks shows the card again on the reloaded page; confirmed there, the tool runs once', async () => {
  const since = stack.fake.requests.length;
  const { context, page, errors } = await openPage({ width: 1280, height: 800 });
  try {
    await ask(page, 'book it');
    await page.locator(W.confirm).waitFor();
    await page.reload();
    await waitConnected(page);
    // The agent asks the reloaded page again: its card, with the same call.
    await page.locator(W.confirm).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator(`${W.confirm} .confirm-summary`).innerText(), 'Book a test drive of the 2023 Toyota RAV4 on 2026-12-12 for Jane Doe');
    await page.locator(W.confirmOk).click();
    await page.locator(W.text).filter({ hasText: 'Model read: Booked the rav4-2023' }).waitFor();
    await waitIdle(page);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).ran.length), 1, 'the reloaded page ran it once');
    const results = toolMessages(since);
    assert.equal(results.length, 1, 'the model read one result for the call');
    assert.match(results[0], /Booked the rav4-2023 on 2026-12-12 for Jane Doe\./);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a card being edited on a 390x844 phone, taller than the screen: the "new messages" pill never covers its fields or buttons; Confirm is reached and clicked', async () => {
  const { context, page, errors } = await openPage({ width: 390, height: 844 }, true);
  try {
    const since = stack.fake.requests.length;
    await ask(page, 'order the car with every option');
    const card = page.locator(W.confirm);
    await card.waitFor();
    await page.locator(`${W.confirm} .confirm-edit`).tap();
    const first = page.locator(`${W.confirm} input[data-key="option1"]`);
    await first.waitFor();
    assert.ok(await card.evaluate((c, h) => c.getBoundingClientRect().height > h, 844), 'the card being edited is taller than the phone');
    // A wrong value: its error under the field makes the card taller while the visitor is in it.
    await first.fill('x');
    await page.locator(`${W.confirm} .confirm-error:visible`).waitFor();
    const inCard = await pillOver(page, '.confirm');
    assert.deepEqual(inCard.covered, [], `with the focus in the card the pill (shown: ${inCard.shown}) covers ${inCard.covered.join(', ')}`);
    assert.equal(inCard.shown, false, 'while the visitor is in the card the pill is not shown');
    await page.screenshot({ path: '/tmp/card-tall-phone-edit.png' });
    // The focus leaves the card: the pill tells there is more below, under the transcript.
    await page.locator(W.input).tap();
    await page.locator('byomcp-chat .new-messages').waitFor({ state: 'visible' });
    assert.deepEqual(await pillOver(page, '.confirm'), { shown: true, position: 'static', covered: [] }, 'with the focus out of the card the pill shows, off the card');
    await page.screenshot({ path: '/tmp/card-tall-phone-pill.png' });
    await first.tap();
    await first.fill('leather seats');
    for (let i = 0; i < 22; i++) {
      const at = await pillOver(page, '.confirm');
      assert.deepEqual(at.covered, [], `after ${i} Tab(s) the pill (shown: ${at.shown}) covers ${at.covered.join(', ')}`);
      assert.ok(await focusInCard(page), `the focus left the card after ${i} Tab(s)`);
      assert.ok(await focusedInView(page), `after ${i} Tab(s) the focused control is not in view`);
      await page.keyboard.press('Tab');
    }
    const ok = page.locator(W.confirmOk);
    await ok.scrollIntoViewIfNeeded();
    assert.deepEqual((await pillOver(page, '.confirm')).covered, [], 'Confirm scrolled into view is not covered');
    await page.screenshot({ path: '/tmp/card-tall-phone-confirm.png' });
    await ok.click();
    await page.locator(W.text).filter({ hasText: 'Model read:' }).waitFor();
    await waitIdle(page);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).ran), [{ ...ORDER_ARGS, option1: 'leather seats' }]);
    assert.match(toolMessages(since).join('\n'), /option1 from "choice 1" to "leather seats"/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
