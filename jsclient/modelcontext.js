// WebMCP's document.modelContext for byomcp: installs a compatible polyfill backed by a ToolHost,
// or, when the browser (or another script) already provides one, mirrors its tools into the host.
//
// Pages may register tools before this script has loaded with this inline snippet; the queued
// registrations are replayed into the polyfill by installModelContext:
//
//   <script>
//     document.modelContext ??= {__byomcpQueue: [], registerTool(t, o) { this.__byomcpQueue.push([t, o]); }};
//   </script>

import { invalidState } from './tools.js';
import { toLogger } from './wsrpc.js';

/** Marks our polyfill objects, across copies of this module. */
const MARK = Symbol.for('byomcp.modelContext');

/**
 * WebMCP-compatible model context backed by a ToolHost. Dispatches 'toolchange' whenever the
 * host's tools change.
 */
export class ModelContext extends EventTarget {
  /** @type {import('./tools.js').ToolHost} */
  #host;
  /** @type {Map<string, {unregister(): void}>} tools registered through this object */
  #own = new Map();

  /** @param {import('./tools.js').ToolHost} host */
  constructor(host) {
    super();
    this.#host = host;
    host.addEventListener('change', () => this.dispatchEvent(new Event('toolchange')));
  }

  /** Always true: tells our polyfill apart from native implementations. */
  get [MARK]() {
    return true;
  }

  /**
   * Registers a tool (see ToolHost.registerTool for the rules). Aborting signal unregisters it.
   * @param {import('./tools.js').Tool} tool
   * @param {{signal?: AbortSignal}} [options]
   * @returns {{unregister(): void}}
   */
  registerTool(tool, { signal } = {}) {
    const handle = this.#host.registerTool(tool, { signal });
    const name = tool.name;
    if (!this.#host.has(name)) return handle;
    this.#own.set(name, handle);
    signal?.addEventListener(
      'abort',
      () => {
        if (this.#own.get(name) === handle) this.#own.delete(name);
      },
      { once: true },
    );
    return handle;
  }

  /**
   * Unregisters a tool by name (or by the tool object, as newer WebMCP drafts do). Throws an
   * InvalidStateError when there is no such tool.
   * @param {string|{name: string}} nameOrTool
   */
  unregisterTool(nameOrTool) {
    const name = typeof nameOrTool === 'string' ? nameOrTool : nameOrTool?.name;
    this.#own.delete(name);
    if (!this.#host.unregisterTool(name)) throw invalidState(`unregisterTool: no tool named "${name}"`);
  }

  /**
   * Replaces the tools registered through this object with tools.
   * @param {{tools?: import('./tools.js').Tool[]}} [context]
   */
  provideContext({ tools = [] } = {}) {
    this.clearContext();
    for (const tool of tools) this.registerTool(tool);
  }

  /** Unregisters every tool registered through this object. */
  clearContext() {
    const handles = [...this.#own.values()];
    this.#own.clear();
    for (const h of handles) h.unregister();
  }

  /**
   * All tools the agent can see on this page.
   * @returns {import('./tools.js').ToolInfo[]}
   */
  getTools() {
    return this.#host.listTools();
  }

  /**
   * Runs a tool in the page and returns what it returned.
   * @param {string} name
   * @param {unknown} [args]
   * @returns {Promise<unknown>}
   */
  executeTool(name, args = {}) {
    return this.#host.executeTool(name, args);
  }
}

/**
 * Makes document.modelContext feed host. If another implementation is there (native or from
 * another library) and can be read (getTools, executeTool), its tools are mirrored into host and
 * it is returned; otherwise our polyfill is installed at document.modelContext (and
 * navigator.modelContext when absent), the pre-load queue is replayed into it, and it is returned.
 * @param {import('./tools.js').ToolHost} host
 * @param {{win?: any, logger?: Partial<import('./wsrpc.js').Logger>}} [options]
 * @returns {any} the model context the page should use
 */
export function installModelContext(host, { win = globalThis, logger } = {}) {
  const log = toLogger(logger);
  const doc = win?.document;
  const nav = win?.navigator;
  const candidates = [doc?.modelContext, nav?.modelContext].filter((c) => c && typeof c === 'object');
  const ours = candidates.find((c) => c[MARK] === true);
  if (ours) return ours;
  const stubs = [...new Set(candidates.filter((c) => Array.isArray(c.__byomcpQueue)))];
  const other = candidates.find((c) => !Array.isArray(c.__byomcpQueue));
  if (other) {
    if (typeof other.getTools === 'function' && typeof other.executeTool === 'function') {
      mirror(other, host, log);
    } else {
      log.warn('document.modelContext is provided by the browser or another script and cannot be read (no getTools/executeTool); its tools stay invisible to the agent');
    }
    return other;
  }

  const mc = new ModelContext(host);
  if (doc) define(doc, 'modelContext', mc, log);
  if (nav && (!nav.modelContext || stubs.includes(nav.modelContext))) define(nav, 'modelContext', mc, log);
  for (const stub of stubs) {
    const queue = stub.__byomcpQueue.splice(0);
    // A page script may still hold the stub: later registrations go straight to the polyfill.
    stub.registerTool = (/** @type {any} */ t, /** @type {any} */ o) => mc.registerTool(t, o);
    for (const [tool, options] of queue) {
      try {
        mc.registerTool(tool, options);
      } catch (err) {
        log.warn(`queued tool ${JSON.stringify(tool?.name)} was not registered:`, err);
      }
    }
  }
  return mc;
}

/**
 * Keeps host's copy of native's tools in step: now and on each 'toolchange'.
 * @param {any} native
 * @param {import('./tools.js').ToolHost} host
 * @param {import('./wsrpc.js').Logger} log
 */
function mirror(native, host, log) {
  /** @type {Map<string, {sig: string, handle: {unregister(): void}}>} */
  const mirrored = new Map();
  /** @type {Promise<void>|null} */
  let running = null;
  let again = false;

  const syncOnce = async () => {
    let tools;
    try {
      tools = await native.getTools();
    } catch (err) {
      log.warn('modelContext.getTools failed:', err);
      return;
    }
    const seen = new Set();
    for (const raw of Array.isArray(tools) ? tools : []) {
      const def = readTool(raw);
      if (!def) {
        log.warn('modelContext tool skipped (no usable name):', raw);
        continue;
      }
      seen.add(def.name);
      const sig = JSON.stringify([def.description, def.inputSchema, def.annotations ?? null]);
      const cur = mirrored.get(def.name);
      if (cur && cur.sig === sig && host.has(def.name)) continue;
      cur?.handle.unregister();
      mirrored.delete(def.name);
      try {
        const handle = host.registerTool({
          ...def,
          execute: (args, client) => native.executeTool(def.name, args, { signal: client.signal }),
        });
        mirrored.set(def.name, { sig, handle });
      } catch (err) {
        log.warn(`modelContext tool ${JSON.stringify(def.name)} not mirrored:`, err);
      }
    }
    for (const [name, m] of [...mirrored]) {
      if (seen.has(name)) continue;
      m.handle.unregister();
      mirrored.delete(name);
    }
  };

  const sync = () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await syncOnce();
      } while (again);
    })().finally(() => {
      running = null;
    });
    return running;
  };

  if (typeof native.addEventListener === 'function') native.addEventListener('toolchange', () => void sync());
  void sync();
}

/**
 * Reads one tool description from a foreign model context (inputSchema may be a JSON string).
 * @param {any} raw
 * @returns {{name: string, description: string, inputSchema?: object, annotations?: object}|null}
 */
function readTool(raw) {
  if (!raw || typeof raw.name !== 'string') return null;
  /** @type {{name: string, description: string, inputSchema?: object, annotations?: object}} */
  const def = { name: raw.name, description: typeof raw.description === 'string' ? raw.description : '' };
  let schema = raw.inputSchema;
  if (typeof schema === 'string' && schema !== '') {
    try {
      schema = JSON.parse(schema);
    } catch {
      return null;
    }
  }
  if (schema && typeof schema === 'object') def.inputSchema = schema;
  if (raw.annotations && typeof raw.annotations === 'object') def.annotations = raw.annotations;
  return def;
}

/**
 * Sets obj[key] = value, also where the property is not plainly writable.
 * @param {any} obj
 * @param {string} key
 * @param {unknown} value
 * @param {import('./wsrpc.js').Logger} log
 */
function define(obj, key, value, log) {
  try {
    obj[key] = value;
  } catch {
    // Read-only accessor or frozen object: try defineProperty below.
  }
  if (obj[key] === value) return;
  try {
    Object.defineProperty(obj, key, { value, configurable: true, writable: true, enumerable: true });
  } catch (err) {
    log.warn(`cannot install ${key}:`, err);
  }
}
