// Shared setup of the AG-UI end-to-end tests: builds and starts the real byomcp binary with
// OPENAI_BASE_URL pointing at the fake model, and wraps @ag-ui/client's HttpAgent so every
// event it receives is also kept raw (as parsed from the wire) for schema checks.
import { before, after } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HttpAgent } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { buildBinary } from '../browser/harness.mjs';

/** How long any single wait in these tests may take. */
export const WAIT_MS = 20000;

// The binary and the server are started as in the browser tests (--store memory, then the
// test's own flags, which win).
export { buildBinary, startServer, ROOT } from '../browser/harness.mjs';

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
 * Reads a text/event-stream body: each `data:` event parsed as JSON into events, until it
 * ends or is cut (an aborted run, a killed server: what was read is kept).
 * @param {ReadableStream<Uint8Array>} body
 * @param {any[]} events
 */
export async function readSSE(body, events) {
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
    // cut: what was read is kept
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

/**
 * What every AG-UI test file sets up once: the binary, built; a temporary directory; and
 * @ag-ui/client's warnings, captured (it warns when it strips or repairs anything it received:
 * a test asserts there are none; empty them with `suite.warnings.length = 0`). Call it at a
 * file's top level: its before and after hooks are the file's.
 * @param {string} prefix the temporary directory's name prefix
 */
export function suiteSetup(prefix) {
  const suite = {
    /** @type {{bin: string, cleanup: () => Promise<void>}} */
    built: /** @type {any} */ (undefined),
    tmp: '',
    /** @type {string[]} */
    warnings: [],
  };
  const realWarn = console.warn;
  before(async () => {
    suite.built = await buildBinary();
    suite.tmp = await mkdtemp(path.join(os.tmpdir(), prefix));
    console.warn = (...args) => {
      suite.warnings.push(args.map(String).join(' '));
    };
  });
  after(async () => {
    console.warn = realWarn;
    await suite.built?.cleanup();
    if (suite.tmp) await rm(suite.tmp, { recursive: true, force: true });
  });
  return suite;
}
