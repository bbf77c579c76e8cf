// Shared setup of the browser end-to-end tests: builds and starts the real byomcp binary,
// launches Debian's chromium through playwright-core, a TCP proxy that can cut connections, and
// helpers that drive the <byomcp-chat> widget like a visitor. Every wait is bounded.
import { spawn, execFile } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** How long any single wait in these tests may take. */
export const WAIT_MS = 20000;

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];

/** Environment variables that would pick a model; removed so each test chooses its own. */
const MODEL_ENV = /^(OPENAI_|OPENROUTER_|GEMINI_|BYOMCP_)/;

/**
 * Builds the binary once per test file (the Go build cache makes repeats cheap), or uses
 * BYOMCP_BIN when set.
 * @returns {Promise<{bin: string, cleanup: () => Promise<void>}>}
 */
export async function buildBinary() {
  if (process.env.BYOMCP_BIN) return { bin: process.env.BYOMCP_BIN, cleanup: async () => {} };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'byomcp-e2e-'));
  const bin = path.join(dir, 'byomcp');
  await new Promise((resolve, reject) => {
    execFile('go', ['build', '-o', bin, './cmd/byomcp'], { cwd: ROOT, timeout: 300000 }, (err, _out, stderr) => {
      if (err) reject(new Error(`go build failed: ${err.message}\n${stderr}`));
      else resolve(undefined);
    });
  });
  return { bin, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Starts `byomcp serve --addr 127.0.0.1:0 --store memory` and waits for its URL.
 * @param {string} bin
 * @param {{model?: string|null, args?: string[]}} [options] model: the fake OpenAI base URL (…/v1),
 *   or null for no model at all (the offline planner); args: more flags for `serve`
 * @returns {Promise<{url: string, logs: string[], pid: number|undefined, waitLog: (re: RegExp) => Promise<void>, kill9: () => Promise<void>, close: () => Promise<void>}>}
 */
export async function startServer(bin, { model = null, args = [] } = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !MODEL_ENV.test(k)));
  if (model) Object.assign(env, { OPENAI_BASE_URL: model, OPENAI_API_KEY: 'test', BYOMCP_MODEL: 'fake-model' });
  env.BYOMCP_LOG_LEVEL = 'debug';
  const proc = spawn(bin, ['serve', '--addr', '127.0.0.1:0', '--store', 'memory', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  /** @type {string[]} */
  const logs = [];
  const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`byomcp did not print its URL within ${WAIT_MS} ms:\n${logs.join('')}`)), WAIT_MS);
    proc.stdout.on('data', (d) => {
      buf += d;
      logs.push(String(d));
      const line = buf.split('\n')[0];
      const m = /(http:\/\/[^\s/]+)/.exec(line);
      if (buf.includes('\n') || m) {
        clearTimeout(timer);
        if (m) resolve(m[1]);
        else reject(new Error(`unexpected first line from byomcp: ${line}`));
      }
    });
    proc.stderr.on('data', (d) => logs.push(String(d)));
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`byomcp exited early (${code ?? signal}):\n${logs.join('')}`));
    });
  });
  proc.stdout.on('data', (d) => logs.push(String(d)));
  return {
    url,
    logs,
    /** The server's process id (to send it SIGHUP). */
    pid: proc.pid,
    /** Waits (at most WAIT_MS) until the server's output matches re. @param {RegExp} re */
    waitLog: async (re) => {
      const end = Date.now() + WAIT_MS;
      while (!re.test(logs.join(''))) {
        if (Date.now() > end) throw new Error(`timed out waiting for the log line ${re}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    /** Ends the process with SIGKILL (no shutdown at all) and waits until it is gone. */
    kill9: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGKILL');
      await exited;
    },
    close: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM'); // running turns get their grace (10 s) before the sockets close
      const t = setTimeout(() => proc.kill('SIGKILL'), 15000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * Launches chromium headless.
 * @param {string[]} [extraArgs] more command-line switches (e.g. --enable-features=WebMCP)
 */
export function launchBrowser(extraArgs = []) {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...extraArgs], timeout: WAIT_MS });
}

/**
 * A TCP proxy in front of the server, to cut every connection at once like a network blip, or
 * to go silent like a network that is gone while the sockets still look open (pause: nothing is
 * forwarded either way and new connections are refused; resume: back to normal, the silent
 * connections are dropped as a real network change would).
 * @param {string} target the server's http URL
 * @returns {Promise<{url: string, dropAll: () => number, pause: () => void, resume: () => void, close: () => Promise<void>}>}
 */
export async function startProxy(target) {
  const t = new URL(target);
  /** @type {Set<net.Socket>} */
  const open = new Set();
  let paused = false;
  const counts = { refused: 0, passed: 0 };
  const server = net.createServer((client) => {
    if (paused) {
      counts.refused++;
      client.destroy();
      return;
    }
    counts.passed++;
    const upstream = net.connect(Number(t.port), t.hostname);
    open.add(client);
    open.add(upstream);
    client.on('data', (d) => {
      if (!paused) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!paused) client.write(d);
    });
    const end = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {net.AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}`,
    /** connections refused while paused, and passed on */
    counts: () => ({ ...counts }),
    dropAll: () => {
      const n = open.size;
      for (const s of [...open]) s.destroy();
      return n;
    },
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      for (const s of [...open]) s.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Records what the widget's client reports, on every page load of the context: agent events in
 * window.__events, connection states in window.__states, and in window.__trace each state with
 * the time since the page's start and a reconnect's delay (to tell why a test waited in vain).
 * @param {import('playwright-core').BrowserContext} context
 */
export async function recordClientEvents(context) {
  await context.addInitScript(() => {
    const w = /** @type {any} */ (window);
    w.__events = [];
    w.__states = [];
    w.__trace = [];
    w.__sessions = [];
    let value;
    Object.defineProperty(window, 'byomcp', {
      configurable: true,
      get: () => value,
      set: (v) => {
        value = v;
        v.client.addEventListener('agent-event', (e) => w.__events.push(e.detail));
        v.client.addEventListener('state', (e) => {
          w.__states.push(e.detail.state);
          w.__trace.push(`${Math.round(performance.now())} ${e.detail.state} ${e.detail.delayMs ?? ''}`);
        });
        v.client.addEventListener('session', (e) => w.__sessions.push({ ...e.detail, messages: e.detail.messages.length }));
      },
    });
  });
}

/**
 * Opens a page with the usual bounded timeouts and fails the test on page errors.
 * @param {import('playwright-core').BrowserContext} context
 */
export async function newPage(context) {
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  page.setDefaultNavigationTimeout(WAIT_MS);
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (process.env.E2E_VERBOSE) console.log(`[page ${m.type()}] ${m.text()}`);
  });
  return { page, errors };
}

/** The widget element (Playwright's CSS engine pierces its open shadow root). */
export const W = {
  launcher: 'byomcp-chat .launcher',
  panel: 'byomcp-chat .panel',
  input: 'byomcp-chat textarea',
  send: 'byomcp-chat .send',
  stop: 'byomcp-chat .stop',
  turns: 'byomcp-chat .turn',
  user: 'byomcp-chat .user-text',
  text: 'byomcp-chat .assistant .text',
  tool: 'byomcp-chat details.tool',
  confirm: 'byomcp-chat .confirm',
  confirmOk: 'byomcp-chat .confirm .btn-primary',
  confirmCancel: 'byomcp-chat .confirm .btn-secondary',
  note: 'byomcp-chat .note',
  error: 'byomcp-chat .error',
  status: 'byomcp-chat .status',
};

/**
 * Runs axe-core on the page, into the widget's open shadow root too, and returns the
 * violations (rule id, impact, the nodes' targets).
 * @param {import('playwright-core').Page} page
 * @returns {Promise<{id: string, impact: string, help: string, nodes: string[]}[]>}
 */
export async function axeViolations(page) {
  if (!(await page.evaluate(() => typeof (/** @type {any} */ (window).axe) === 'object'))) {
    await page.addScriptTag({ path: path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js') });
  }
  return page.evaluate(async () => {
    const axe = /** @type {any} */ (window).axe;
    const res = await axe.run(document, { resultTypes: ['violations'] });
    return res.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
}

/**
 * Axe's serious and critical violations inside the widget.
 * @param {import('playwright-core').Page} page
 */
export async function seriousInWidget(page) {
  const v = await axeViolations(page);
  return v.filter((x) => (x.impact === 'serious' || x.impact === 'critical') && x.nodes.some((n) => n.includes('byomcp-chat')));
}

/**
 * Whether the focus is inside the widget's element that selector names (an open card or form).
 * @param {import('playwright-core').Page} page
 * @param {string} selector
 */
export function focusInside(page, selector) {
  return page.evaluate((sel) => {
    const root = document.querySelector('byomcp-chat')?.shadowRoot;
    const box = root?.querySelector(sel);
    return !!box && !!root?.activeElement && box.contains(root.activeElement);
  }, selector);
}

/**
 * The controls (fields, choices, buttons, links) of the widget's element that selector names (an
 * open card or form) whose visible part (inside the transcript's box: what is scrolled out is
 * clipped) lies under the "new messages" pill while the pill is shown; whether it is shown, and
 * its CSS position.
 * @param {import('playwright-core').Page} page
 * @param {string} selector
 * @returns {Promise<{shown: boolean, position: string, covered: string[]}>}
 */
export function pillOver(page, selector) {
  return page.evaluate((sel) => {
    const root = /** @type {ShadowRoot} */ (document.querySelector('byomcp-chat')?.shadowRoot);
    const pill = /** @type {HTMLElement} */ (root.querySelector('.new-messages'));
    const shown = pill.checkVisibility();
    const p = pill.getBoundingClientRect();
    const t = /** @type {HTMLElement} */ (root.querySelector('.transcript')).getBoundingClientRect();
    const box = root.querySelector(sel);
    /** @type {string[]} */
    const covered = [];
    for (const c of box ? box.querySelectorAll('input, select, button, label, summary, a[href]') : []) {
      const r = c.getBoundingClientRect();
      const top = Math.max(r.top, t.top);
      const bottom = Math.min(r.bottom, t.bottom);
      const left = Math.max(r.left, t.left);
      const right = Math.min(r.right, t.right);
      if (bottom <= top || right <= left) continue; // scrolled out of the transcript's view
      if (shown && top < p.bottom && bottom > p.top && left < p.right && right > p.left) {
        const key = /** @type {HTMLElement} */ (c).dataset.key;
        covered.push(`${c.localName}${key ? `[${key}]` : ''} ${c.textContent?.trim() ?? ''}`.trim());
      }
    }
    return { shown, position: getComputedStyle(pill).position, covered };
  }, selector);
}

/**
 * Whether the widget's focused element lies wholly inside the transcript's view.
 * @param {import('playwright-core').Page} page
 */
export function focusedInView(page) {
  return page.evaluate(() => {
    const root = /** @type {ShadowRoot} */ (document.querySelector('byomcp-chat')?.shadowRoot);
    const at = root.activeElement;
    if (!at) return false;
    const r = at.getBoundingClientRect();
    const t = /** @type {HTMLElement} */ (root.querySelector('.transcript')).getBoundingClientRect();
    return r.top >= t.top - 1 && r.bottom <= t.bottom + 1;
  });
}

/** The text of a model message (string or parts). */
export const messageText = (/** @type {any} */ m) => (typeof m?.content === 'string' ? m.content : (m?.content ?? []).map((p) => p.text ?? '').join(''));

/**
 * The tool messages of the fake model's requests from request since on, as text.
 * @param {{requests: any[]}} fake
 * @param {number} since
 */
export const toolMessagesSince = (fake, since) =>
  fake.requests.slice(since).flatMap((r) => (r.body.messages ?? []).filter((m) => m.role === 'tool').map(messageText));

/**
 * Serves one page of HTML from a server of its own on the loopback (an origin the agent allows
 * by default), as a site owner's page.
 * @param {string} html
 * @returns {Promise<{url: string, close: () => Promise<void>}>}
 */
export async function serveSite(html) {
  const site = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', () => resolve(undefined)));
  return {
    url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (site.address()).port}/`,
    close: () => new Promise((resolve) => site.close(() => resolve(undefined))),
  };
}

/** Waits until the widget's client has an open session. */
export async function waitConnected(page) {
  await page.waitForFunction(() => /** @type {any} */ (window).byomcp?.client?.state === 'open', null, { timeout: WAIT_MS });
}

/** Opens the panel (if closed). */
export async function openWidget(page) {
  if ((await page.locator('byomcp-chat').getAttribute('open')) === null) await page.locator(W.launcher).click();
  await page.locator(W.input).waitFor({ state: 'visible' });
}

/**
 * Types a message and sends it with Enter, as a visitor would.
 * @param {import('playwright-core').Page} page
 * @param {string} text
 */
export async function ask(page, text) {
  await openWidget(page);
  await page.locator(W.input).fill(text);
  await page.locator(W.input).press('Enter');
}

/** Waits until no turn runs in the widget (it sets aria-busy while one does). */
export async function waitIdle(page) {
  await page.waitForFunction(() => document.querySelector('byomcp-chat')?.getAttribute('aria-busy') === 'false', null, { timeout: WAIT_MS });
}

/**
 * Waits until the widget has seen `count` turn_end events on this page load, and returns them.
 * @param {import('playwright-core').Page} page
 * @param {number} count
 */
export async function waitTurnEnds(page, count) {
  await page.waitForFunction((n) => /** @type {any} */ (window).__events.filter((e) => e.type === 'turn_end').length >= n, count, { timeout: WAIT_MS });
  return page.evaluate(() => /** @type {any} */ (window).__events.filter((e) => e.type === 'turn_end'));
}

/** The transcript's visible text. */
export function transcript(page) {
  return page.locator('byomcp-chat .log').innerText();
}

/** A date string (YYYY-MM-DD) `days` days from today. */
export function isoDateIn(days) {
  const d = new Date(Date.now() + days * 86400000);
  return d.toISOString().slice(0, 10);
}

/**
 * Starts everything a test file needs: the binary, a fake model (or none), the server, a
 * browser. close() stops them all.
 * @param {{script?: Parameters<typeof import('./fake-openai.mjs').startFakeOpenAI>[0] | null, serverArgs?: string[]}} options
 */
export async function startStack({ script = null, serverArgs = [] } = {}) {
  const { startFakeOpenAI } = await import('./fake-openai.mjs');
  /** @type {Array<() => Promise<void>>} */
  const closers = [];
  const close = async () => {
    for (const c of closers.reverse()) {
      try {
        await c();
      } catch (err) {
        console.error('e2e cleanup:', err);
      }
    }
  };
  try {
    const built = await buildBinary();
    closers.push(built.cleanup);
    const fake = script ? await startFakeOpenAI(script) : null;
    if (fake) closers.push(fake.close);
    const server = await startServer(built.bin, { model: fake ? fake.url : null, args: serverArgs });
    closers.push(server.close);
    const browser = await launchBrowser();
    closers.push(() => browser.close());
    return { fake, server, browser, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * A free TCP port on the loopback.
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}
