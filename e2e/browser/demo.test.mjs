// The demo site's own behaviour through the agent: the compare drawer's tools exist only while
// it is open, filters survive a reload through the URL, the financing page's tools arrive
// through the pre-load queue, and a confirmation withdrawn by Stop runs nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, recordClientEvents, newPage, ask, waitIdle, waitConnected, waitTurnEnds, W } from './harness.mjs';
import { lastUserText, toolNames, toolResultsSinceUser } from './fake-openai.mjs';

function script(body) {
  const user = lastUserText(body);
  const results = toolResultsSinceUser(body);
  const call = (name, args) => (results.length ? { text: `Done with ${name}.` } : { toolCalls: [{ name, arguments: args }] });
  if (/compare/.test(user)) return call('compare_cars', { carIds: ['c01', 'c02'] });
  if (/close it/.test(user)) return call('close_comparison', {});
  if (/cheapest electric/.test(user)) {
    if (results.length === 0) return { toolCalls: [{ name: 'search_cars', arguments: { fuel: 'electric' } }] };
    if (results.length === 1) return { toolCalls: [{ name: 'sort_cars', arguments: { by: 'price', order: 'asc' } }] };
    return { text: 'Sorted.' };
  }
  if (/48 months/.test(user)) return call('calculate_payment', { termMonths: 48, downPayment: 5000 });
  if (/book now/.test(user)) return call('book_test_drive', {});
  return { text: 'ok' };
}

let stack;
before(async () => {
  stack = await startStack({ script });
});
after(async () => {
  await stack?.close();
});

/** The tools offered in the model request made for the user message matching re. */
function offeredFor(re) {
  const req = stack.fake.requests.find((r) => re.test(lastUserText(r.body)));
  assert.ok(req, `no model request for ${re}`);
  return toolNames(req.body);
}

test('the compare drawer registers its tools only while open', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    assert.ok(!(await page.evaluate(() => /** @type {any} */ (window).byomcp.host.has('get_comparison'))));
    await ask(page, 'please compare the first two');
    await page.locator('#compare-drawer').waitFor();
    await page.locator(W.text).filter({ hasText: 'Done with compare_cars.' }).waitFor();
    await waitIdle(page);
    assert.match(await page.locator('#compare-drawer').innerText(), /2023 Toyota RAV4[\s\S]*2022 Honda CR-V/);
    await ask(page, 'close it');
    await page.locator('#compare-drawer').waitFor({ state: 'detached' });
    await page.locator(W.text).filter({ hasText: 'Done with close_comparison.' }).waitFor();
    await waitIdle(page);
    const whileOpen = offeredFor(/close it/);
    assert.ok(whileOpen.includes('get_comparison') && whileOpen.includes('close_comparison'), `offered ${whileOpen}`);
    assert.ok(!offeredFor(/compare the first two/).includes('get_comparison'));
    await page.waitForFunction(() => !(/** @type {any} */ (window).byomcp.host.has('close_comparison')));
    await ask(page, 'anything else');
    await page.locator(W.text).filter({ hasText: 'ok' }).last().waitFor();
    await waitIdle(page);
    assert.ok(!offeredFor(/anything else/).includes('close_comparison'), 'the drawer tools outlived the drawer');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('search and sort through tools; a reload keeps them (URL query)', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await ask(page, 'the cheapest electric car');
    await page.locator(W.text).filter({ hasText: 'Sorted.' }).waitFor();
    await waitIdle(page);
    const ids = () => page.locator('#grid .card').evaluateAll((cs) => cs.map((c) => c.getAttribute('data-car-id')));
    assert.deepEqual(await ids(), ['c12', 'c05', 'c04']);
    await page.reload();
    await page.locator('#grid .card').first().waitFor();
    assert.deepEqual(await ids(), ['c12', 'c05', 'c04']);
    assert.equal(await page.locator('#f-fuel').inputValue(), 'electric');
    assert.equal(await page.locator('#sort').inputValue(), 'price-asc');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the financing page registers its tools through the pre-load queue', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/financing.html?id=c01&price=30000');
    await waitConnected(page);
    assert.deepEqual(await page.evaluate(() => /** @type {any} */ (document).modelContext.__byomcpQueue ?? null), null, 'the queue stub is still document.modelContext');
    assert.ok(await page.evaluate(() => /** @type {any} */ (window).byomcp.host.has('calculate_payment')));
    await ask(page, 'what over 48 months with 5000 down?');
    await page.locator(W.text).filter({ hasText: 'Done with calculate_payment.' }).waitFor();
    await waitIdle(page);
    assert.ok(offeredFor(/48 months/).includes('apply_for_financing'));
    assert.equal(await page.locator('#fi-term').inputValue(), '48');
    assert.equal(await page.locator('#fi-down').inputValue(), '5000');
    // 25,000 at 6.9% APR over 48 months.
    assert.equal(await page.locator('#monthly').innerText(), '$597.50');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('Stop while a confirmation waits withdraws it and runs nothing', async () => {
  const context = await stack.browser.newContext();
  try {
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/test-drive.html?id=c03');
    await waitConnected(page);
    await ask(page, 'book now');
    await page.locator(W.confirm).waitFor();
    await page.locator(W.stop).click();
    const [end] = await waitTurnEnds(page, 1);
    assert.equal(end.stopReason, 'cancelled');
    await page.locator(W.confirm).waitFor({ state: 'detached' });
    await waitIdle(page);
    const notes = await page.locator(W.note).allInnerTexts();
    assert.ok(notes.some((n) => /withdrawn/.test(n)), `notes: ${notes}`);
    assert.equal(await page.locator('#booked').isVisible(), false);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
