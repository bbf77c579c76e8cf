// Shared setup of the AG-UI end-to-end tests: builds and starts the real byomcp binary with
// OPENAI_BASE_URL pointing at the fake model, and wraps @ag-ui/client's HttpAgent so every
// event it receives is also kept raw (as parsed from the wire) for schema checks.
import { spawn, execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpAgent } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** How long any single wait in these tests may take. */
export const WAIT_MS = 20000;

/** Environment variables that would pick a model; removed so each test chooses its own. */
const MODEL_ENV = /^(OPENAI_|OPENROUTER_|GEMINI_|BYOMCP_)/;

/**
 * Builds the binary once per test file, or uses BYOMCP_BIN when set.
 * @returns {Promise<{bin: string, cleanup: () => Promise<void>}>}
 */
export async function buildBinary() {
  if (process.env.BYOMCP_BIN) return { bin: process.env.BYOMCP_BIN, cleanup: async () => {} };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'byomcp-agui-'));
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
 * Starts `byomcp serve --addr 127.0.0.1:0` with the fake model and waits for its URL.
 * @param {string} bin
 * @param {{model: string, args?: string[]}} options model: the fake OpenAI base URL (…/v1);
 *   args: more flags (default `--store memory`)
 * @returns {Promise<{url: string, logs: string[], waitLog: (re: RegExp) => Promise<void>, close: () => Promise<void>}>}
 */
export async function startServer(bin, { model, args = ['--store', 'memory'] }) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !MODEL_ENV.test(k)));
  Object.assign(env, { OPENAI_BASE_URL: model, OPENAI_API_KEY: 'test', BYOMCP_MODEL: 'fake-model', BYOMCP_LOG_LEVEL: 'debug' });
  const proc = spawn(bin, ['serve', '--addr', '127.0.0.1:0', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  /** @type {string[]} */
  const logs = [];
  const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`byomcp did not print its URL within ${WAIT_MS} ms:\n${logs.join('')}`)), WAIT_MS);
    proc.stdout.on('data', (d) => {
      buf += d;
      logs.push(String(d));
      const m = /^(http:\/\/\S+)\n/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.stderr.on('data', (d) => logs.push(String(d)));
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`byomcp exited early (${code ?? signal}):\n${logs.join('')}`));
    });
  });
  return {
    url,
    logs,
    waitLog: (re) => waitFor(() => re.test(logs.join('')), `log line ${re}`),
    close: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 15000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * Polls pred until it is true, for at most WAIT_MS.
 * @param {() => boolean} pred
 * @param {string} what
 */
export async function waitFor(pred, what) {
  const end = Date.now() + WAIT_MS;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * An HttpAgent of @ag-ui/client pointed at the server, whose fetch also parses the raw
 * server-sent events of each run into `runs` (one array of events per request).
 * @param {string} url the server's base URL
 * @param {{origin?: string|null, threadId?: string}} [options] origin: the Origin header (null: none)
 */
export function newAgent(url, { origin = url, threadId } = {}) {
  /** @type {any[][]} */
  const runs = [];
  /** @type {Promise<void>[]} */
  const reading = [];
  const agent = new HttpAgent({
    url: `${url}/v1/agui`,
    threadId,
    headers: origin === null ? {} : { Origin: origin },
    fetch: async (u, init) => {
      const res = await fetch(u, init);
      if (!res.ok || !res.body) return res;
      const [mine, theirs] = res.body.tee();
      /** @type {any[]} */
      const events = [];
      runs.push(events);
      reading.push(readSSE(mine, events));
      return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
    },
  });
  return { agent, runs, settled: () => Promise.all(reading) };
}

/**
 * Reads a text/event-stream body: each `data:` event parsed as JSON into events.
 * @param {ReadableStream<Uint8Array>} body
 * @param {any[]} events
 */
async function readSSE(body, events) {
  const dec = new TextDecoder();
  let buf = '';
  try {
    for await (const chunk of body) {
      buf += dec.decode(chunk, { stream: true });
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
        if (data) events.push(JSON.parse(data));
      }
    }
  } catch {
    // the run was aborted: what was read is kept
  }
}

/**
 * Checks every event against @ag-ui/core's zod schemas; returns the list of types.
 * @param {any[]} events
 */
export function checkEvents(events) {
  for (const ev of events) {
    const r = EventSchemas.safeParse(ev);
    if (!r.success) throw new Error(`event ${JSON.stringify(ev)} does not match @ag-ui/core's schema: ${r.error.message}`);
  }
  return events.map((e) => e.type);
}
