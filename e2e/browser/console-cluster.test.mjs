// The operator console with two replicas on one redis-server (issue 16): the console of
// replica B lists the tab of a visitor connected to replica A (page, tools, marked with A's
// replica) and shows A's turn with its tool call, from the events A appends to Redis; and the
// site's daily token budget is one for both: what a turn on A spent refuses a turn on B, with
// the visitor's message and B's metric. Skipped without redis-server (failed when
// BYOMCP_REQUIRE_REDIS=1).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildBinary, startServer, launchBrowser, newPage, ask, waitConnected, freePort, W, WAIT_MS } from './harness.mjs';
import { startFakeOpenAI, lastUserText, toolResultsSinceUser } from './fake-openai.mjs';

const TOKEN = 'console-token-for-the-cluster-test';

function hasRedis() {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const skip = hasRedis() ? false : process.env.BYOMCP_REQUIRE_REDIS === '1' ? false : 'redis-server is not installed';

/** Starts a redis-server without persistence and waits until it accepts connections. */
async function startRedis() {
  const port = await freePort();
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), WAIT_MS);
    proc.stdout.on('data', (d) => {
      out += d;
      if (/Ready to accept connections/.test(out)) {
        clearTimeout(timer);
        resolve(undefined);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}):\n${out}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}/0`,
    close: () => new Promise((resolve) => {
      if (proc.exitCode !== null) return resolve(undefined);
      proc.once('exit', () => resolve(undefined));
      proc.kill('SIGKILL');
    }),
  };
}

function script(body) {
  const results = toolResultsSinceUser(body);
  if (/red SUVs/.test(lastUserText(body)) && results.length === 0) {
    return { toolCalls: [{ name: 'search_cars', arguments: { bodyType: 'suv', color: 'red' } }] };
  }
  if (results.length > 0) return { text: 'Here are the red SUVs on the lot.', chunkSize: 4, delayMs: 60 };
  return { text: `You said: ${lastUserText(body)}` };
}

/** @type {Array<() => Promise<unknown>>} */
const closers = [];
let a, b, fake, browser;
before(async () => {
  if (skip) return;
  const redis = await startRedis();
  closers.push(redis.close);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'byomcp-cluster-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  // The fake model counts 120 tokens a call: a turn with a tool call (two calls) spends 240,
  // over the site's 200 a day.
  const sites = path.join(dir, 'sites.json');
  await writeFile(sites, JSON.stringify({ sites: [{ name: 'northwind', origins: ['http://127.0.0.1:*', 'http://localhost:*'], budget: { siteTokensPerDay: 200 } }] }));
  const built = await buildBinary();
  closers.push(built.cleanup);
  fake = await startFakeOpenAI(script);
  closers.push(fake.close);
  const args = ['--store', redis.url, '--console-token', TOKEN, '--sites', sites];
  a = await startServer(built.bin, { model: fake.url, args });
  closers.push(a.close);
  b = await startServer(built.bin, { model: fake.url, args });
  closers.push(b.close);
  browser = await launchBrowser();
  closers.push(() => browser.close());
});
after(async () => {
  for (const c of closers.reverse()) await c().catch((err) => console.error('cleanup:', err));
});

test('B\'s console shows a tab and a turn of replica A; the budget spent on A refuses a turn on B', { skip }, async () => {
  const op = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const visitorA = await browser.newContext();
  const visitorB = await browser.newContext();
  try {
    const { page: console_, errors } = await newPage(op);
    await console_.goto(b.url + '/console/');
    await console_.locator('#token').fill(TOKEN);
    await console_.locator('#signin-form button').click();
    await console_.locator('#nav').waitFor();

    const { page: shopA } = await newPage(visitorA);
    await shopA.goto(a.url + '/');
    await waitConnected(shopA);

    // The tab on A, in B's list, with its tools and A's replica (B's own list has none).
    const tab = console_.locator('#tabs tr.tab').filter({ hasText: 'Northwind' });
    await tab.waitFor({ timeout: WAIT_MS });
    const replicaA = await tab.getAttribute('data-replica');
    assert.match(replicaA ?? '', /^replica-/);
    assert.equal(await tab.locator('td.replica').innerText(), replicaA);
    await tab.locator('summary').first().click();
    await tab.locator('.tool-name', { hasText: 'search_cars' }).waitFor();
    // Its definition is on A only: B reads it from A (through the store) when it is opened.
    await tab.locator('.tool-name', { hasText: 'search_cars' }).click();
    await tab.locator('details[open] .tool-def pre', { hasText: '"bodyType"' }).waitFor({ timeout: WAIT_MS });

    // A's turn, live on B's console, with its tool call and arguments.
    await ask(shopA, 'Show me red SUVs');
    const turn = console_.locator('#turns .turn').filter({ hasText: 'Show me red SUVs' });
    await turn.waitFor({ timeout: WAIT_MS });
    assert.equal(await turn.getAttribute('data-replica'), replicaA);
    await turn.locator('.call .name', { hasText: 'search_cars' }).waitFor();
    assert.match(await turn.locator('.call pre.args').innerText(), /"color": "red"/);
    await shopA.locator(W.text).filter({ hasText: 'Here are the red SUVs' }).waitFor();
    await turn.locator('.who .pill.end').waitFor();

    // The site's day is spent (240 of 200 tokens, on A): a new conversation on B is refused
    // before it reaches the model.
    const calls = fake.requests.length;
    const { page: shopB } = await newPage(visitorB);
    await shopB.goto(b.url + '/');
    await waitConnected(shopB);
    await ask(shopB, 'hello from B');
    await shopB.locator(W.error).filter({ hasText: 'usage limit' }).waitFor();
    assert.equal(fake.requests.length, calls, 'the refused turn must not reach the model');
    const metrics = await (await fetch(b.url + '/metrics')).text();
    assert.match(metrics, /byomcp_refused_total\{reason="token_budget"\} 1\b/);
    assert.match(metrics, /byomcp_budget_refused_total\{scope="site",site="northwind"\} 1\b/);
    assert.deepEqual(errors, []);
  } finally {
    await op.close();
    await visitorA.close();
    await visitorB.close();
  }
});
