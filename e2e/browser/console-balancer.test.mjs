// The operator console behind a non-sticky balancer (issue 40): two replicas on one
// redis-server behind HAProxy running the shipped docs/deploy/haproxy.cfg (only its addresses
// filled in, as the Go balancer tests do). The console, signed in through the balancer, has
// its samples of /console/api/metrics answered by both replicas in turn; visitors run turns on
// each replica; the Health view's figures are cluster-wide (the total is the sum of both
// replicas' own /metrics) and no chart value is below zero. Then one replica is killed with
// SIGKILL: the Live view marks its tab "replica not answering" (its presence is late) before
// the tab goes. Skipped without redis-server or haproxy (failed when BYOMCP_REQUIRE_REDIS=1
// or BYOMCP_REQUIRE_LB=1).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildBinary, startServer, launchBrowser, newPage, ask, waitConnected, freePort, W, WAIT_MS, ROOT } from './harness.mjs';
import { startFakeOpenAI, lastUserText } from './fake-openai.mjs';

const TOKEN = 'console-token-for-the-balancer-test';
// Waits that span several 5 s presence rounds and health samples.
const LONG_WAIT_MS = 60000;

function has(cmd, args) {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p)) ?? 'haproxy';
const missing = [has('redis-server', ['--version']) ? '' : 'redis-server', has(HAPROXY, ['-v']) ? '' : 'haproxy'].filter(Boolean);
const required = process.env.BYOMCP_REQUIRE_REDIS === '1' || process.env.BYOMCP_REQUIRE_LB === '1';
const skip = missing.length === 0 || required ? false : `${missing.join(' and ')} not installed`;

/** Polls cond (async) every 100 ms until it returns a truthy value; fails after ms. */
async function until(what, cond, ms = WAIT_MS) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    last = await cond();
    if (last) return last;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts a process and returns a stop function; waitOut waits for its output to match. */
function startProc(cmd, args) {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  return {
    output: () => out,
    exited: () => proc.exitCode !== null || proc.signalCode !== null,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Starts a redis-server without persistence; resolves when it accepts connections. */
async function startRedis() {
  const port = await freePort();
  const p = startProc('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  await until('redis-server to start', () => /Ready to accept connections/.test(p.output()) || (p.exited() && Promise.reject(new Error(p.output()))));
  return { url: `redis://127.0.0.1:${port}/0`, stop: p.stop };
}

/**
 * The shipped HAProxy recipe with its `bind` address set to listen and its `server` lines
 * replaced by one per replica (the first one's other settings kept), as
 * cmd/byomcp/lb_harness_test.go's templateConfig does.
 * @param {string} listen
 * @param {{name: string, addr: string}[]} replicas
 */
async function haproxyConfig(listen, replicas) {
  const recipe = await readFile(path.join(ROOT, 'docs/deploy/haproxy.cfg'), 'utf8');
  let bound = false, served = false;
  const out = [];
  for (const line of recipe.split('\n')) {
    const f = line.trim().split(/\s+/);
    const indent = line.slice(0, line.length - line.trimStart().length);
    if (f[0] === 'bind' && f.length >= 2) {
      f[1] = listen;
      out.push(indent + f.join(' '));
      bound = true;
    } else if (f[0] === 'server' && f.length >= 3) {
      if (!served) for (const r of replicas) out.push(indent + ['server', r.name, r.addr, ...f.slice(3)].join(' '));
      served = true;
    } else {
      out.push(line);
    }
  }
  assert.ok(bound && served, 'docs/deploy/haproxy.cfg has no bind line or no server line to fill in');
  return out.join('\n');
}

/** Sums the samples of a counter (all its series) in a /metrics text. */
function counterSum(text, name) {
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum += Number(m[1]);
  return sum;
}

/** @type {Array<() => Promise<unknown>>} */
const closers = [];
let a, b, fake, browser, lbURL, idA, idB;
before(async () => {
  if (skip) return;
  const redis = await startRedis();
  closers.push(redis.stop);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'byomcp-console-lb-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  const sites = path.join(dir, 'sites.json');
  await writeFile(sites, JSON.stringify({ sites: [{ name: 'northwind', origins: ['http://127.0.0.1:*', 'http://localhost:*'] }] }));
  const built = await buildBinary();
  closers.push(built.cleanup);
  fake = await startFakeOpenAI((body) => ({ text: `You said: ${lastUserText(body)}` }));
  closers.push(fake.close);
  // The console is reached at the balancer's address: it is the replicas' public URL, so
  // that the console's own origin is not taken for a site's page.
  const lbPort = await freePort();
  lbURL = `http://127.0.0.1:${lbPort}`;
  const args = ['--store', redis.url, '--console-token', TOKEN, '--sites', sites, '--public-url', lbURL];
  a = await startServer(built.bin, { model: fake.url, args });
  closers.push(a.close);
  b = await startServer(built.bin, { model: fake.url, args });
  closers.push(b.close);
  for (const r of [a, b]) await r.waitLog(/"replica":"[^"]+"/);
  idA = /"replica":"([^"]+)"/.exec(a.logs.join(''))?.[1];
  idB = /"replica":"([^"]+)"/.exec(b.logs.join(''))?.[1];
  assert.ok(idA && idB && idA !== idB, `replica ids ${idA} ${idB}`);
  const cfg = path.join(dir, 'haproxy.cfg');
  await writeFile(cfg, await haproxyConfig(`127.0.0.1:${lbPort}`, [{ name: 'a', addr: new URL(a.url).host }, { name: 'b', addr: new URL(b.url).host }]));
  const lb = startProc(HAPROXY, ['-db', '-f', cfg]);
  closers.push(lb.stop);
  // In service once both replicas answered a request through it.
  const seen = new Set();
  await until('HAProxy to send requests to both replicas', async () => {
    if (lb.exited()) throw new Error(`haproxy exited:\n${lb.output()}`);
    const res = await fetch(lbURL + '/readyz').catch(() => null);
    if (res?.ok) seen.add(res.headers.get('x-byomcp-replica'));
    return seen.has('a') && seen.has('b');
  });
  browser = await launchBrowser();
  closers.push(() => browser.close());
});
after(async () => {
  for (const c of closers.reverse()) await c().catch((err) => console.error('cleanup:', err));
});

test('behind the shipped HAProxy recipe, Health is cluster-wide and sane; a killed replica\'s tab is marked "replica not answering"', { skip, timeout: 240000 }, async () => {
  const op = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const visitorA = await browser.newContext();
  const visitorB = await browser.newContext();
  try {
    const { page: con, errors } = await newPage(op);
    /** The balancer's server that answered each sample of the Health view. */
    const answeredBy = [];
    con.on('response', (res) => {
      if (new URL(res.url()).pathname === '/console/api/metrics') answeredBy.push(res.headers()['x-byomcp-replica']);
    });
    await con.goto(lbURL + '/console/');
    await con.locator('#token').fill(TOKEN);
    await con.locator('#signin-form button').click();
    await con.locator('#nav').waitFor();
    await con.locator('#nav button[data-view="health"]').click();
    // Two samples before the turns: the rates are drawn from differences.
    await until('two health samples', () => answeredBy.length >= 2, LONG_WAIT_MS);

    // Two turns on A, one on B (each visitor's page is on its replica's own address).
    const { page: shopA } = await newPage(visitorA);
    await shopA.goto(a.url + '/');
    await waitConnected(shopA);
    const { page: shopB } = await newPage(visitorB);
    await shopB.goto(b.url + '/');
    await waitConnected(shopB);
    for (const [shop, text] of [[shopA, 'first on A'], [shopA, 'second on A'], [shopB, 'only on B']]) {
      await ask(shop, text);
      await shop.locator(W.text).filter({ hasText: `You said: ${text}` }).waitFor();
    }
    // A turn is counted once its end is stored, after the visitor saw its answer (and its
    // turn_end): the replicas' own counts are read until they have it, or the wait runs out.
    let own = [];
    let turns = [];
    await until('both replicas counting their turns', async () => {
      own = await Promise.all([a, b].map(async (r) => (await fetch(r.url + '/metrics')).text()));
      turns = own.map((m) => counterSum(m, 'byomcp_turns_total'));
      return turns[0] === 2 && turns[1] === 1;
    }, LONG_WAIT_MS).catch(() => {});
    const tokens = own.map((m) => counterSum(m, 'byomcp_model_tokens_total'));
    assert.deepEqual(turns, [2, 1], 'turns ended on A and on B, from their own /metrics');

    // The Health view's figures: the total is both replicas' sum, whichever replica answers.
    const figures = async () => con.evaluate(() => ({
      turns: Number(document.querySelector('#now dd[data-figure="turns ended"]')?.textContent ?? NaN),
      tokens: Number(document.querySelector('#now dd[data-figure="tokens"]')?.textContent ?? NaN),
      replicas: Object.fromEntries([...document.querySelectorAll('#now-replicas li')].map((li) => [
        /** @type {HTMLElement} */ (li).dataset.replica, Number(/** @type {HTMLElement} */ (li).dataset.turnsEnded)])),
      charts: Object.fromEntries(['#chart-turns', '#chart-model', '#chart-tokens-hour'].map((id) => [id, JSON.parse(/** @type {HTMLElement} */ (document.querySelector(id))?.dataset.values ?? 'null')])),
    }));
    let last;
    await until('the Health view to show both replicas\' turns and a turn rate', async () => {
      last = await figures();
      const rates = last.charts['#chart-turns']?.['all replicas'] ?? [];
      return last.turns === 3 && last.replicas[idA] === 2 && last.replicas[idB] === 1 && rates.some((v) => v > 0);
    }, LONG_WAIT_MS).catch((err) => { throw new Error(`${err.message}; last figures ${JSON.stringify(last)}`); });
    assert.equal(last.tokens, tokens[0] + tokens[1], 'tokens: the sum of both replicas\' own counters');
    // A few more samples alternating between the replicas, then every value drawn is sane.
    const n = answeredBy.length;
    await until('three more samples', () => answeredBy.length >= n + 3, LONG_WAIT_MS);
    last = await figures();
    assert.ok(answeredBy.includes('a') && answeredBy.includes('b'), `the samples came from both replicas: ${answeredBy}`);
    assert.equal(last.turns, 3);
    const turnRates = last.charts['#chart-turns'];
    assert.ok(turnRates['all replicas']?.length >= 4, `turn rates ${JSON.stringify(turnRates)}`);
    // A line per replica beside the sum, each with its turns.
    for (const id of [idA, idB]) assert.ok(turnRates[id]?.some((v) => v > 0), `no turn rate drawn for ${id}: ${JSON.stringify(turnRates)}`);
    const drawn = [...Object.values(turnRates), ...Object.values(last.charts['#chart-model']), ...Object.values(last.charts['#chart-tokens-hour'])].flat();
    for (const v of drawn) assert.ok(Number.isFinite(v) && v >= 0, `a chart value of ${v}: ${JSON.stringify(last.charts)}`);
    // Turns per minute over the samples add up to the 3 turns (the page's sample times are
    // 5 s apart: rate x minutes is the increase of each interval).
    assert.ok(last.charts['#chart-tokens-hour']['all sites'].some((v) => v > 0), 'tokens per hour drawn');
    assert.deepEqual(errors, []);

    // Live view: both tabs listed, each with its replica; B is killed with SIGKILL.
    await con.locator('#nav button[data-view="live"]').click();
    const tabB = con.locator(`#tabs tr.tab[data-replica="${idB}"]`);
    const tabA = con.locator(`#tabs tr.tab[data-replica="${idA}"]`);
    await tabB.waitFor({ timeout: LONG_WAIT_MS });
    await tabA.waitFor({ timeout: LONG_WAIT_MS });
    assert.equal(await tabB.locator('.pill.late').count(), 0, 'B\'s tab marked before B died');
    await b.kill9();
    await tabB.locator('.pill.late', { hasText: 'replica not answering' }).waitFor({ timeout: LONG_WAIT_MS });
    assert.equal(await tabA.locator('.pill.late').count(), 0, 'A\'s tab marked although A runs');
    // Then the presence expires and the tab leaves the list.
    await tabB.waitFor({ state: 'detached', timeout: LONG_WAIT_MS });
  } finally {
    await op.close();
    await visitorA.close();
    await visitorB.close();
  }
});
