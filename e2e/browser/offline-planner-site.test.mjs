// The offline planner across the demo site (issue 41): a request the page cannot do goes to the
// page that can, with the page's own navigation tools, and the values said on the way are kept.
// Conversations at desktop width and on a phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startStack, newPage, ask, waitIdle, waitConnected, W } from './harness.mjs';

/** Whether something accepts connections on 127.0.0.1:port. */
function listening(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

let stack;
let ollamaPresent = false;
before(async () => {
  ollamaPresent = await listening(11434);
  if (!ollamaPresent) stack = await startStack({ script: null });
});
after(async () => {
  await stack?.close();
});

const OLLAMA = 'something listens on 127.0.0.1:11434 (an Ollama?), so the server would not fall back to the offline planner';

/** The names of the tools the transcript shows as run, in order. */
async function ran(page) {
  return (await page.locator(W.tool).allInnerTexts()).map((s) => s.trim().split('\n')[0]);
}

/** Waits for an assistant text that contains text; a time-out says what the transcript shows. */
async function reply(page, text) {
  try {
    await page.locator(W.text).filter({ hasText: text }).first().waitFor({ timeout: 30000 });
  } catch (err) {
    const said = (await page.locator(W.text).allInnerTexts()).slice(-3);
    throw new Error(`no reply with ${JSON.stringify(text)} on ${page.url()}; the last replies: ${JSON.stringify(said)}; ran: ${JSON.stringify(await ran(page))}`, { cause: err });
  }
}

/** Runs body on a page of path in a 390x844 phone's browser; the page must log no errors. */
async function onPhone(t, path, body) {
  if (ollamaPresent) return t.skip(OLLAMA);
  const context = await stack.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + path);
    await waitConnected(page);
    await body(page);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
}

test('desktop: another car\'s test drive from a car page, across three pages, then the details', async (t) => {
  if (ollamaPresent) return t.skip(OLLAMA);
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/car.html?id=c01');
    await waitConnected(page);
    await page.locator('#configurator').waitFor();
    // The RAV4's page has no other car: back to the inventory, the Mazda3's page, its test drive.
    await ask(page, "I'd like to drive the Mazda3 on Friday at 2pm");
    await page.waitForURL(/\/test-drive\.html\?id=c15\b/, { timeout: 30000 });
    await waitConnected(page);
    await reply(page, 'I need your name and email');
    await waitIdle(page);
    assert.deepEqual(await ran(page), ['Ran back to inventory', 'Ran search cars', 'Ran select car', 'Ran go to test drive']);
    // The date and time said two pages ago are kept: only the missing details were asked for.
    await ask(page, 'Sam Ortiz, sam.ortiz@example.org');
    await reply(page, 'Filled');
    await waitIdle(page);
    assert.equal(await page.locator('#td-name').inputValue(), 'Sam Ortiz');
    assert.equal(await page.locator('#td-email').inputValue(), 'sam.ortiz@example.org');
    assert.equal(await page.locator('#td-time').inputValue(), '14:00');
    const day = await page.locator('#td-date').inputValue();
    assert.match(day, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(new Date(day + 'T12:00:00Z').getUTCDay(), 5, `${day} is a Friday`);
    // A bare yes right after the form was filled sends it, once the visitor confirms the card.
    await ask(page, 'go ahead');
    await page.locator(W.confirmOk).click({ timeout: 30000 });
    await reply(page, 'Booked test drive');
    await waitIdle(page);
    assert.deepEqual((await ran(page)).slice(-1), ['Ran book test drive']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('phone: a payment, a test drive from the calculator, and back with the same figures', (t) =>
  onPhone(t, '/financing.html?id=c12', async (page) => {
    await ask(page, '48 mo, 3k down');
    await reply(page, 'Monthly payment');
    await waitIdle(page);
    assert.equal(await page.locator('#fi-term').inputValue(), '48');
    assert.equal(await page.locator('#fi-down').inputValue(), '3000');
    // The calculator's page goes to the test drive of the same car, and the form asks only for
    // what the request did not say.
    await ask(page, 'test drive it sat 10am');
    await page.waitForURL(/\/test-drive\.html\?id=c12\b/, { timeout: 30000 });
    await waitConnected(page);
    await reply(page, 'I need your name and email');
    await waitIdle(page);
    await ask(page, 'Ana Ruiz ana@ruiz.es');
    await reply(page, 'Filled');
    await waitIdle(page);
    assert.equal(await page.locator('#td-name').inputValue(), 'Ana Ruiz');
    assert.equal(await page.locator('#td-time').inputValue(), '10:00');
    // Back to the calculator: the term and the down payment said at the start are kept.
    await ask(page, 'monthly again?');
    await page.waitForURL(/\/financing\.html\?id=c12\b/, { timeout: 30000 });
    await waitConnected(page);
    await reply(page, 'down $3,000');
    await waitIdle(page);
    assert.equal(await page.locator('#fi-term').inputValue(), '48');
    assert.equal(await page.locator('#fi-down').inputValue(), '3000');
    assert.deepEqual((await ran(page)).slice(-2), ['Ran go to financing', 'Ran calculate payment']);
  }),
);

test('phone: a booking asked for with its day from the list, the details, then a note', (t) =>
  onPhone(t, '/', async (page) => {
    // The inventory cannot book: the Camry's page, then its booking form, which is filled with
    // the day and the time and asks only for the rest (the booking itself is not pressed).
    await ask(page, 'book a test drive of the Camry on Saturday at 11');
    await page.waitForURL(/\/test-drive\.html\?id=c09\b/, { timeout: 30000 });
    await waitConnected(page);
    await reply(page, 'I need your name and email');
    await waitIdle(page);
    await ask(page, 'Ana Ruiz, ana@ruiz.es');
    await reply(page, 'Filled');
    await waitIdle(page);
    assert.equal(await page.locator('#td-name').inputValue(), 'Ana Ruiz');
    assert.equal(await page.locator('#td-time').inputValue(), '11:00');
    const day = await page.locator('#td-date').inputValue();
    assert.equal(new Date(day + 'T12:00:00Z').getUTCDay(), 6, `${day} is a Saturday`);
    // A note after its cue fills the notes and keeps what the form has.
    await ask(page, 'add a note saying I need a child seat');
    await page.locator('#td-notes').and(page.locator(':not(:placeholder-shown)')).waitFor({ timeout: 30000 });
    await waitIdle(page);
    assert.equal(await page.locator('#td-notes').inputValue(), 'I need a child seat');
    assert.equal(await page.locator('#td-name').inputValue(), 'Ana Ruiz');
    assert.equal(await page.locator('#td-time').inputValue(), '11:00');
    assert.ok(!(await ran(page)).includes('Ran book test drive'), 'the booking waits for the visitor');
  }),
);

test('phone: a car named by its model number, compared from its own page, then financed with a share down', (t) =>
  onPhone(t, '/', async (page) => {
    // "330i" is looked up in the list, though "BMW" alone is a filter.
    await ask(page, 'open the BMW 330i');
    await page.waitForURL(/\/car\.html\?id=c11\b/, { timeout: 30000 });
    await waitConnected(page);
    await waitIdle(page);
    // "this" is the car on screen: back to the list, and both compared there.
    await ask(page, 'compare this with the Audi A4');
    await reply(page, 'Comparing 2020 Audi A4, 2021 BMW 330i');
    await waitIdle(page);
    assert.deepEqual((await ran(page)).slice(-2), ['Ran back to inventory', 'Ran compare cars']);
    // 20% of the car's price, never $20: its page, its calculator, the amount filled in.
    await ask(page, 'finance the 330i, 20% down, 60 months');
    await page.waitForURL(/\/financing\.html\?id=c11\b/, { timeout: 30000 });
    await waitConnected(page);
    await reply(page, 'down $6,960');
    await waitIdle(page);
    assert.equal(await page.locator('#fi-down').inputValue(), '6960');
    assert.equal(await page.locator('#fi-term').inputValue(), '60');
  }),
);

test('desktop: a booking page opened by its link: "it" is the car its address names', async (t) => {
  if (ollamaPresent) return t.skip(OLLAMA);
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const { page, errors } = await newPage(context);
    // No conversation opened the car: the page's title and address (in the agent's
    // instructions) say which it is.
    await page.goto(stack.server.url + '/test-drive.html?id=c07');
    await waitConnected(page);
    await ask(page, 'which car is this for?');
    await reply(page, 'It is the 2022 Volvo XC60.');
    await waitIdle(page);
    // Its colours are told on its own page: back to the list, and the XC60's page.
    await ask(page, 'what colours does it come in');
    await page.waitForURL(/\/car\.html\?id=c07\b/, { timeout: 30000 });
    await waitConnected(page);
    await reply(page, 'The color can be white, gray, black or blue');
    await waitIdle(page);
    assert.deepEqual((await ran(page)).slice(-3), ['Ran back to inventory', 'Ran search cars', 'Ran select car']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

/** The suggestion buttons of the last reply (markdown.js renders [“…”](byomcp:say) as buttons). */
function offered(page) {
  return page.locator(W.text).last().locator('button.suggestion');
}

// Never a dead end: a request no page can do is answered with what this page can do and where
// else on the site, as buttons; a click sends the suggestion as the visitor's message, and it works.
for (const { name, viewport, phone } of [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, phone: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: true },
]) {
  test(`${name}: a dead end offers clickable suggestions that work, here and elsewhere on the site`, async (t) => {
    if (ollamaPresent) return t.skip(OLLAMA);
    const context = await stack.browser.newContext({ viewport, isMobile: phone, hasTouch: phone });
    try {
      const { page, errors } = await newPage(context);
      await page.goto(stack.server.url + '/financing.html?id=c12');
      await waitConnected(page);
      await ask(page, 'can I pay in bitcoin?');
      await reply(page, "can't help with that");
      await waitIdle(page);
      // (the calculator was opened by its link: its address names the car, whose page is a way out)
      assert.deepEqual(await offered(page).allInnerTexts(), ['calculate payment 24 months', 'back to the car', 'go to test drive', 'back to inventory']);
      // Here: the calculator's suggestion runs on this page.
      await offered(page).first().click();
      await reply(page, 'Monthly payment');
      await waitIdle(page);
      assert.equal(await page.locator(W.user).last().innerText(), 'calculate payment 24 months');
      assert.equal(await page.locator('#fi-term').inputValue(), '24');
      // Elsewhere: a dead end again, and its "go to test drive" opens the booking page of the same car.
      await ask(page, 'tell me a joke');
      await reply(page, 'Elsewhere on the site');
      await waitIdle(page);
      await offered(page).filter({ hasText: 'go to test drive' }).click();
      await page.waitForURL(/\/test-drive\.html\?id=c12\b/, { timeout: 30000 });
      await waitConnected(page);
      await waitIdle(page);
      assert.deepEqual((await ran(page)).slice(-1), ['Ran go to test drive']);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
