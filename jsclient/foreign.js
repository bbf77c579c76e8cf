// @ts-check
// Another implementation's document.modelContext (Chromium's own, @mcp-b/webmcp-polyfill), read
// for the agent: its tools mirrored into the ToolHost and run through its executeTool. Imported
// by modelcontext.js only on a page that has one (the asset server does not fetch it ahead).

import { agentSchema, agentAnnotations, INVOCATION_FAILED, RECORDED_HINTS, WEBMCP_HINTS, MCP_HINTS, HINTS, ERRORS } from './tools.js';
import { leftToVisitor, submitButton } from './declarative.js';

/**
 * Keeps host's copy of other's tools in step: now and on each 'toolchange'. Calls go to
 * other.executeTool with the RegisteredTool object getTools() gave, the arguments (executeOther)
 * and the call's signal (aborted when the agent cancels, times out or the page goes). The hints
 * getTools() leaves out come from other's side table (recordHints; preload.js may have started
 * it before other's first registration).
 * @param {any} other
 * @param {import('./tools.js').ToolHost} host
 * @param {import('./wsrpc.js').Logger} log
 * @param {any} doc the page's document (its declarative forms)
 */
export function mirror(other, host, log, doc) {
  /** @type {Map<string, Record<string, boolean>>|null} */
  const hints = other[HINTS] ?? null; // made by recordHints (or preload.js)
  /** @type {Map<string, {sig: string, handle: {unregister(): void}, raw: any}>} */
  const mirrored = new Map();
  /** @type {Promise<void>|null} */
  let running = null;
  let again = false;
  let changes = 0; // 'toolchange' events so far

  const syncOnce = async () => {
    let tools;
    try {
      tools = await other.getTools();
    } catch (err) {
      log.warn('modelContext.getTools failed:', err);
      return;
    }
    const seen = new Set();
    for (const raw of Array.isArray(tools) ? tools : []) {
      const def = readTool(raw, hints);
      if (!def) {
        log.warn('modelContext tool skipped (no usable name or schema):', raw);
        continue;
      }
      seen.add(def.name);
      const sig = JSON.stringify([def.title, def.description, def.inputSchema ?? null, def.annotations ?? null]);
      const cur = mirrored.get(def.name);
      if (cur && cur.sig === sig && host.has(def.name)) {
        cur.raw = raw; // the newest object is the one executeTool knows
        continue;
      }
      cur?.handle.unregister();
      mirrored.delete(def.name);
      try {
        /** @type {{sig: string, handle: {unregister(): void}, raw: any}} */
        const m = { sig, raw, handle: { unregister() {} } };
        m.handle = host.registerTool({
          ...def,
          execute: async (args, client) => {
            const form = waitingForm(doc, def.name);
            if (form) return fillOnly(other, m.raw, form, args ?? {}, client.signal);
            const before = changes;
            const result = readResult(await executeOther(other, m.raw, args ?? {}, client.signal));
            // A tool that registered others (a drawer with its own tools): they are mirrored,
            // and so announced to the agent, before this result lets its next model call go.
            if (changes !== before && running) await running;
            return result;
          },
        });
        mirrored.set(def.name, m);
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

  if (typeof other.addEventListener === 'function') {
    other.addEventListener('toolchange', () => {
      changes++;
      void sync();
    });
  }
  void sync();
}

/**
 * Runs a tool through other.executeTool with its input as an object, as the WebMCP draft and
 * Chromium from 155 take it. Chromium until 154 took JSON text: it refuses an object ("Failed to
 * parse input arguments") before the tool runs, and is then given the text. A tool that ran and
 * failed, or a cancelled call, is never tried again.
 * @param {any} other
 * @param {any} tool what other's getTools() gave
 * @param {object} args
 * @param {AbortSignal} signal
 */
async function executeOther(other, tool, args, signal) {
  /** @type {Map<string, {message: string}>|undefined} */
  const errors = other[ERRORS];
  const name = String(tool.name);
  const before = errors?.get(name);
  try {
    try {
      return await other.executeTool(tool, args, { signal });
    } catch (err) {
      if (signal.aborted || !String(/** @type {any} */ (err)?.message).startsWith('Failed to parse input')) throw err;
    }
    return await other.executeTool(tool, JSON.stringify(args), { signal });
  } catch (err) {
    // Chromium's rejection does not say what the tool threw; its registerTool noted it.
    const noted = errors?.get(name);
    if (noted && noted !== before && /** @type {any} */ (err)?.message === INVOCATION_FAILED) {
      throw new DOMException(`${INVOCATION_FAILED}: ${noted.message}`, 'UnknownError');
    }
    throw err;
  }
}

/**
 * The form that is the page's declarative tool name, when it has no toolautosubmit (the visitor
 * sends it), else null.
 * @param {any} doc
 * @param {string} name
 * @returns {HTMLFormElement|null}
 */
function waitingForm(doc, name) {
  const selector = `form[toolname="${name}"]`; // names are [A-Za-z0-9_.-]
  /** @param {any} root the document or an open shadow root (Chromium's forms are there too) */
  const find = (root) => {
    const form = root.querySelector?.(selector);
    if (form) return form;
    for (const el of root.querySelectorAll?.('*') ?? []) {
      const inner = el.shadowRoot && find(el.shadowRoot);
      if (inner) return inner;
    }
    return null;
  };
  const form = doc ? find(doc) : null;
  return form && !form.hasAttribute('toolautosubmit') ? form : null;
}

/**
 * Runs a form tool without toolautosubmit through another implementation as ours does: fills
 * the form and answers that it waits for the visitor. Chromium's executeTool fills it, fires
 * 'toolactivated' and then waits for the visitor's submit; once the form is filled (and the
 * values were not refused) that call is cancelled, so the visitor's submit is their own.
 * @param {any} other
 * @param {any} tool
 * @param {HTMLFormElement} form
 * @param {Record<string, unknown>} args
 * @param {AbortSignal} signal
 */
async function fillOnly(other, tool, form, args, signal) {
  signal.throwIfAborted();
  const ac = new AbortController();
  const stop = () => ac.abort(signal.reason);
  signal.addEventListener('abort', stop, { once: true });
  /** @type {() => void} */
  let onActivated = () => {};
  /** @type {Promise<null>} */
  const activated = new Promise((resolve) => {
    onActivated = () => setTimeout(() => resolve(null), 0); // a refused value rejects the call just after
  });
  const listener = (/** @type {any} */ e) => e.toolName === tool.name && onActivated();
  // At the model context (Chromium) or the window (@mcp-b/webmcp-polyfill).
  const targets = [other, form.ownerDocument?.defaultView].filter((t) => typeof t?.addEventListener === 'function');
  for (const t of targets) t.addEventListener('toolactivated', listener);
  const run = executeOther(other, tool, args, ac.signal);
  try {
    const answer = await Promise.race([run.then((value) => ({ value })), activated]);
    if (answer) return readResult(/** @type {{value: unknown}} */ (answer).value); // it answered at once
  } finally {
    for (const t of targets) t.removeEventListener('toolactivated', listener);
    signal.removeEventListener('abort', stop);
  }
  run.catch(() => {}); // cancelled below: the visitor sends the form
  ac.abort(new DOMException('filled; the visitor sends the form', 'AbortError'));
  submitButton(form)?.focus?.();
  return leftToVisitor(form, String(tool.name), Object.keys(args));
}

/**
 * Reads one tool from another implementation's getTools(). Properties are read one by one (a
 * Chromium Tool is an interface object: spreading or JSON.stringify sees nothing); inputSchema
 * may be null, an object, or JSON text (earlier Chromium). The recorded hints fill in those
 * getTools() did not report (its own values win).
 * @param {any} raw
 * @param {Map<string, Record<string, boolean>>|null} [recorded] the side table (recordHints)
 * @returns {{name: string, title?: string, description: string, inputSchema?: object, annotations?: Record<string, unknown>}|null}
 */
function readTool(raw, recorded) {
  if (!raw || typeof raw !== 'object' || typeof raw.name !== 'string') return null;
  /** @type {{name: string, title?: string, description: string, inputSchema?: object, annotations?: Record<string, unknown>}} */
  const def = { name: raw.name, description: typeof raw.description === 'string' ? raw.description : '' };
  if (typeof raw.title === 'string' && raw.title !== '') def.title = raw.title;
  let schema = raw.inputSchema;
  if (typeof schema === 'string' && schema !== '') {
    try {
      schema = JSON.parse(schema);
    } catch {
      return null;
    }
  }
  if (schema && typeof schema === 'object' && !Array.isArray(schema)) def.inputSchema = withoutEmptyChoices(agentSchema(schema));
  const ann = agentAnnotations(withRecorded(raw.annotations, recorded?.get(raw.name)));
  if (ann) def.annotations = ann;
  return def;
}

/**
 * The annotations getTools() reported, with the recorded hints it left out added.
 * @param {any} reported
 * @param {Record<string, boolean>|undefined} hints
 */
function withRecorded(reported, hints) {
  const a = reported && typeof reported === 'object' ? reported : null;
  const missing = hints ? RECORDED_HINTS.filter((k) => k in hints && (a?.[k] ?? null) === null) : [];
  if (missing.length === 0) return reported;
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const k of ['title', ...WEBMCP_HINTS, ...MCP_HINTS]) if (a && a[k] !== undefined) out[k] = a[k];
  for (const k of missing) out[k] = /** @type {Record<string, boolean>} */ (hints)[k];
  return out;
}

/**
 * What another implementation's executeTool resolved with, as a value for the ToolHost: a
 * string holding a JSON object or array (Chromium and the polyfill serialize results) is parsed,
 * so an MCP result stays one; any other string is text; anything else passes as it is.
 * @param {unknown} value
 */
export function readResult(value) {
  if (typeof value !== 'string') return value;
  const s = value.trimStart();
  if (s.startsWith('{') || s.startsWith('[')) {
    try {
      return JSON.parse(value);
    } catch {
      // Not JSON after all: text.
    }
  }
  return value;
}

/**
 * schema without the properties that offer an empty choice: Chromium synthesizes a form's
 * schema when it sees the form, and a <select> whose options the page adds later gives
 * `anyOf: []`, which is not valid JSON Schema (the agent would refuse the whole tool). No value
 * could be given there anyway; the property comes back with the form's next 'toolchange'.
 * @param {Record<string, any>} schema
 */
function withoutEmptyChoices(schema) {
  const props = schema.properties;
  if (!props || typeof props !== 'object') return schema;
  const empty = Object.keys(props).filter((k) => noChoice(props[k]));
  if (!empty.length) return schema;
  const properties = { ...props };
  for (const k of empty) delete properties[k];
  const out = { ...schema, properties };
  if (Array.isArray(schema.required)) out.required = schema.required.filter((/** @type {string} */ k) => !empty.includes(k));
  return out;
}

/** @param {any} p a property's schema: its anyOf or oneOf (or its items') is empty */
function noChoice(p) {
  return !!p && typeof p === 'object' && (['anyOf', 'oneOf'].some((k) => Array.isArray(p[k]) && p[k].length === 0) || noChoice(p.items));
}
