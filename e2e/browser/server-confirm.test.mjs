// A server-side MCP tool marked destructiveHint: true, called in a web conversation, runs only
// once the visitor confirmed it in the widget (agent/confirm; issue 36, item 5), on the card
// that says what will happen (the tool's title and summary), with the arguments the visitor
// edited there, or not at all with the reason they gave (issue 38). Real Chromium, the real
// binary, the official MCP SDK's stdio server, a fake model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT, W, ask, newPage, startStack, waitConnected, waitIdle } from './harness.mjs';
import { lastMessage } from './fake-openai.mjs';

/** @type {Awaited<ReturnType<typeof startStack>>} */
let stack;
/** @type {string} */
let tmp;
/** @type {string} */
let ranLog;
const TOKEN = 'console-token-for-the-confirm-test';
/** @type {string[]} the tool results the model read, in order */
const toolResults = [];

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'byomcp-server-confirm-'));
  ranLog = path.join(tmp, 'ran.log');
  await writeFile(ranLog, '');
  const config = path.join(tmp, 'mcp.json');
  await writeFile(config, JSON.stringify({
    mcpServers: { admin: { command: process.execPath, args: [path.join(ROOT, 'e2e/browser/destructive-mcp.mjs'), ranLog], expose: ['web'] } },
  }));
  // The model calls admin__wipe for each question, then says what the tool answered.
  const script = (body) => {
    const last = lastMessage(body);
    if (last?.role === 'tool') {
      toolResults.push(String(last.content));
      return { text: `Result: ${String(last.content).includes('orders deleted') ? 'deleted' : 'not deleted'}.` };
    }
    return { toolCalls: [{ name: 'admin__wipe', arguments: '{"scope":"all"}' }] };
  };
  stack = await startStack({ script, serverArgs: ['--mcp-config', config, '--console-token', TOKEN] });
  // A turn only reaches the tools of the MCP servers ready by then (they start beside the agent):
  // the script calls admin's tool whatever it was offered (as in mcp-apps.test.mjs).
  await stack.server.waitLog(/"MCP server ready","mcpServer":"admin"/);
});

after(async () => {
  await stack?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const ran = async () => (await readFile(ranLog, 'utf8')).split('\n').filter(Boolean);
const runs = async () => (await ran()).length;

test('the widget asks before a destructive server tool runs: declined, it does not run; allowed, it runs', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);

    await ask(page, 'delete all orders');
    await page.locator(W.confirm).waitFor();
    assert.equal(await runs(), 0, 'the tool ran before the visitor answered');
    await page.locator(W.confirmCancel).click();
    await page.locator(W.text).filter({ hasText: 'Result: not deleted.' }).waitFor();
    await waitIdle(page);
    assert.equal(await runs(), 0);

    await ask(page, 'delete all orders, really');
    await page.locator(W.confirm).waitFor();
    await page.locator(W.confirmOk).click();
    await page.locator(W.text).filter({ hasText: 'Result: deleted.' }).waitFor();
    await waitIdle(page);
    assert.equal(await runs(), 1);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the card shows the server tool as its server describes it; an edit runs, a reason reaches the model', async () => {
  const context = await stack.browser.newContext();
  try {
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    const before = await runs();

    await ask(page, 'delete the orders');
    await page.locator(W.confirm).waitFor();
    assert.equal(await page.locator(`${W.confirm} .confirm-action`).innerText(), 'Wipe orders');
    assert.equal(await page.locator(`${W.confirm} .confirm-summary`).innerText(), 'Delete all orders');
    await page.locator(`${W.confirm} .confirm-edit`).click();
    await page.locator(`${W.confirm} select[data-key="scope"]`).selectOption('mine');
    assert.equal(await page.locator(`${W.confirm} .confirm-summary`).innerText(), 'Delete mine orders', 'the summary follows the edit');
    await page.locator(W.confirmOk).click();
    await page.locator(W.text).filter({ hasText: 'Result: deleted.' }).waitFor();
    await waitIdle(page);
    assert.deepEqual((await ran()).slice(before), ['wiped mine'], 'the tool ran once, with the scope the visitor chose');
    assert.match(toolResults.at(-1) ?? '', /\nThe user changed the arguments before confirming: scope from "all" to "mine"\. The tool ran with the user's arguments\.\nmine orders deleted\n/);

    await ask(page, 'delete them all');
    await page.locator(W.confirm).waitFor();
    await page.locator(`${W.confirm} .confirm-why summary`).click();
    await page.locator(`${W.confirm} .confirm-why input`).fill('keep the orders until Monday');
    await page.locator(W.confirmCancel).click();
    await page.locator(W.text).filter({ hasText: 'Result: not deleted.' }).last().waitFor();
    await waitIdle(page);
    assert.equal((await ran()).length - before, 1, 'the declined call did not run');
    assert.match(toolResults.at(-1) ?? '', /The user declined to run admin__wipe\.\nThe user's reason: keep the orders until Monday/);
    assert.deepEqual(errors, []);

    // The operator's console shows who answered what, and when, on each call.
    const op = await newPage(context);
    await op.page.goto(stack.server.url + '/console/');
    await op.page.locator('#token').fill(TOKEN);
    await op.page.locator('#signin-form button').click();
    await op.page.locator('#nav button[data-view="conversations"]').click();
    await op.page.locator('#q').fill('delete the orders');
    await op.page.locator('#search button').click();
    await op.page.locator('#conversations tr.conversation').filter({ hasText: 'delete the orders' }).first().click();
    const confirmed = op.page.locator('#transcript .confirmation.confirmed');
    await confirmed.waitFor();
    assert.match(await confirmed.innerText(), /^the visitor confirmed, with arguments they changed · \S/);
    assert.match(await op.page.locator('#transcript .confirmation.declined').innerText(), /^the visitor declined · .+ · “keep the orders until Monday”$/);
    await op.page.screenshot({ path: '/tmp/console-confirmations.png', fullPage: true });
    assert.deepEqual(op.errors, []);
  } finally {
    await context.close();
  }
});
