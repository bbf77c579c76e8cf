// No model configured at all (no OPENAI_*, and no Ollama on its default port): the server uses
// the offline planner, which still drives the demo's tools and says what it is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startStack, recordClientEvents, newPage, ask, waitIdle, waitConnected, waitTurnEnds, W } from './harness.mjs';

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

test('the offline planner filters the grid and says it is the offline planner', async (t) => {
  if (ollamaPresent) {
    t.skip('something listens on 127.0.0.1:11434 (an Ollama?), so the server would not fall back to the offline planner');
    return;
  }
  assert.match(stack.server.logs.join(''), /offline planner/i, 'the server should log that it uses the offline planner');
  const context = await stack.browser.newContext();
  try {
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await page.locator('#grid .card').first().waitFor();
    await ask(page, 'show me SUVs');
    const [end] = await waitTurnEnds(page, 1);
    await waitIdle(page);
    assert.equal(end.stopReason, 'end');
    const bodies = await page.locator('#grid .card .meta').allInnerTexts();
    assert.equal(bodies.length, 7, `grid shows ${bodies.length} cars`);
    for (const b of bodies) assert.match(b, /^SUV/);
    assert.match(page.url(), /bodyType=suv/);
    const events = await page.evaluate(() => /** @type {any} */ (window).__events);
    const call = events.find((e) => e.type === 'tool_call');
    assert.equal(call?.name, 'search_cars');
    assert.match(end.text, /offline planner/i);
    assert.match(await page.locator(W.text).last().innerText(), /offline planner/i);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the offline planner compares cars named by the visitor and answers from what the page returned', async (t) => {
  if (ollamaPresent) {
    t.skip('something listens on 127.0.0.1:11434 (an Ollama?), so the server would not fall back to the offline planner');
    return;
  }
  const context = await stack.browser.newContext();
  try {
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await page.locator('#grid .card').first().waitFor();
    // The widget's own suggestion: the names are resolved to ids through a first search.
    await ask(page, 'Compare the RAV4 and the CR-V');
    const [first] = await waitTurnEnds(page, 1);
    await waitIdle(page);
    assert.equal(first.stopReason, 'end');
    const calls = (await page.evaluate(() => /** @type {any} */ (window).__events)).filter((e) => e.type === 'tool_call');
    assert.deepEqual(calls.map((c) => c.name), ['search_cars', 'compare_cars']);
    assert.deepEqual(calls[1].arguments, { carIds: ['c01', 'c02'] });
    await page.locator('#compare-drawer').waitFor();
    assert.match(first.text, /2023 Toyota RAV4/);
    assert.match(first.text, /\$31,990/);
    assert.doesNotMatch(first.text, /\bc0\d\b/, 'the reply names cars, not ids');
    assert.match(first.text, /offline planner/i, 'the first reply carries the note for the site owner');
    // A question about what is on screen is answered, not acted on; the note is not repeated.
    await ask(page, 'which one is cheaper?');
    const ends = await waitTurnEnds(page, 2);
    await waitIdle(page);
    const second = ends[1];
    assert.match(second.text, /Honda CR-V is the cheaper/);
    assert.doesNotMatch(second.text, /OPENAI_API_KEY/);
    const after = (await page.evaluate(() => /** @type {any} */ (window).__events)).filter((e) => e.type === 'tool_call');
    assert.equal(after.length, 2, 'no tool ran for the question');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the offline planner takes a request the inventory cannot do to the car\'s own page, and on to the test drive', async (t) => {
  if (ollamaPresent) {
    t.skip('something listens on 127.0.0.1:11434 (an Ollama?), so the server would not fall back to the offline planner');
    return;
  }
  const context = await stack.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const { page, errors } = await newPage(context);
    // The car page registers its tools once its data has loaded: here 500 ms after it asked,
    // so its socket lists none at first. The agent waits for them (a page reached by a tool
    // that navigated is given 2 s), and the request goes on there in the same turn.
    await page.route('**/data/cars.json', async (route) => {
      if (/\/car\.html/.test(route.request().frame().url())) await new Promise((r) => setTimeout(r, 500));
      await route.continue();
    });
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await page.locator('#grid .card').first().waitFor();
    // The inventory has no test-drive tool: the planner opens the RAV4's page (select_car),
    // reads the request again there and goes on with go_to_test_drive, across two navigations.
    await ask(page, 'book a test drive for the rav4');
    await page.waitForURL(/\/test-drive\.html\?id=c01\b/, { timeout: 20000 });
    await waitConnected(page);
    await page.locator(W.text).filter({ hasText: 'Opening the test-drive booking page for the 2023 Toyota RAV4' }).waitFor();
    await waitIdle(page);
    const ran = (await page.locator(W.tool).allInnerTexts()).map((s) => s.trim().split('\n')[0]);
    assert.deepEqual(ran, ['Ran search cars', 'Ran select car', 'Ran go to test drive']);
    // The conversation goes on on the page it reached.
    await ask(page, 'Jane Doe, jane@example.com, saturday at 10');
    await page.locator(W.text).filter({ hasText: 'Filled' }).waitFor();
    await waitIdle(page);
    assert.equal(await page.locator('#td-name').inputValue(), 'Jane Doe');
    assert.equal(await page.locator('#td-email').inputValue(), 'jane@example.com');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
