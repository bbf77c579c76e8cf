// @ts-check
/**
 * @file The host side of MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865,
 * protocol 2026-01-26) in `<byomcp-chat>`: a server tool's result that carries an app
 * (tool_result's `app`) is shown with it in a sandboxed iframe, and the app talks to the widget
 * over postMessage JSON-RPC. conversation.js imports this module only when the first app comes.
 *
 * Containment: the iframe is `sandbox="allow-scripts"` (no allow-same-origin: an opaque origin,
 * so the page's DOM, cookies and storage are out of its reach; no top navigation, popups,
 * forms or downloads); its document is the agent's /byomcp/app-frame (jsclient/appframe.go),
 * served with a Content-Security-Policy that sandboxes it too and denies the network except the
 * origins the resource's `_meta.ui.csp` names, into which the app's HTML is written. The event
 * names the document by its SHA-256 (`app.sha256`): this module fetches it from the agent
 * (`/byomcp/apps/{server}/{sha256}?uri=…`, CORS, no credentials); a document the agent no longer
 * has is shown as "This view is no longer available." instead of the app. No
 * permission (camera, …) is granted. Only messages whose `source` is that iframe's window, that are JSON-RPC 2.0
 * shapes and at most MAX_MESSAGE_BYTES are read; an app that sends more than RATE_BURST messages
 * in a burst (refilled at RATE_PER_SECOND) is stopped and removed. Links are shown for the visitor
 * to click, never opened by the app; a message the app asks to send is shown with a Send button.
 */

// This module imports nothing (see confirm-card.js: a shared module would become a chunk of its
// own on every first page).

/** The MCP Apps revision this host speaks. */
export const APPS_PROTOCOL_VERSION = '2026-01-26';
/** Revisions an app may ask for and get. */
const SUPPORTED = [APPS_PROTOCOL_VERSION, '2025-11-21'];
/** A larger message from an app is dropped (and counted against it as a flood). */
export const MAX_MESSAGE_BYTES = 256 * 1024;
/** An app's messages: a bucket of RATE_BURST, refilled at RATE_PER_SECOND; empty = cut off. */
export const RATE_BURST = 200;
export const RATE_PER_SECOND = 50;
/** Heights the app may ask for (px); the maximum is also at most 70% of the window's height. */
export const MIN_HEIGHT = 48;
export const MAX_HEIGHT = 640;
const START_HEIGHT = 160;
/** At most this many calls of an app run at once; more are answered with an error. */
const MAX_PENDING_CALLS = 4;
/** Bounds of what the widget shows of an app's link and message. */
const MAX_URL = 2048;
const MAX_MESSAGE_TEXT = 4000;

const STYLE = `.mcp-app{margin:.4em 0;border:1px solid var(--byomcp-border,#d0d4da);border-radius:8px;overflow:hidden;background:var(--byomcp-bg,#fff)}
.mcp-app.borderless{border-color:transparent}
.mcp-app iframe{display:block;width:100%;border:0;height:${START_HEIGHT}px;background:#fff}
.mcp-app .app-bar{font-size:.8em;padding:.2em .6em;color:var(--byomcp-muted,#5f6670);border-bottom:1px solid var(--byomcp-border,#e3e6ea)}
.mcp-app .app-ask{padding:.4em .6em;border-top:1px solid var(--byomcp-border,#e3e6ea);font-size:.9em;overflow-wrap:anywhere}
.mcp-app .app-ask button{margin:.3em .4em 0 0}`;

/**
 * @typedef {object} AppInfo tool_result's app (docs/protocol.md, "MCP Apps")
 * @property {string} server
 * @property {string} tool
 * @property {string} uri
 * @property {string} sha256 the document's SHA-256 (hex), its name at the agent
 * @property {{connectDomains?: string[], resourceDomains?: string[], frameDomains?: string[], baseUriDomains?: string[]}} [csp]
 * @property {boolean} [prefersBorder]
 * @property {unknown} [input]
 * @property {unknown} [result]
 * @property {string} token
 */

/**
 * @typedef {object} AppHost what an app needs of the widget
 * @property {Document} doc
 * @property {(params: {token: string, name: string, arguments: unknown}) => Promise<unknown>} call agent/appCall
 * @property {(text: string) => boolean} send sends text as the visitor's message; false when it cannot now
 * @property {() => void} [scroll]
 * @property {boolean} [phone]
 */

/** @type {Map<Window, AppFrame>} the apps on screen, by their iframe's window */
const frames = new Map();
/** @type {WeakSet<Document|ShadowRoot>} the roots that have the apps' style */
const styled = new WeakSet();
/** @type {WeakSet<Window>} the windows whose message listener is installed */
const listening = new WeakSet();

/**
 * Shows a tool_result's app under its call's entry, for conversation.js.
 * @param {Element|undefined} entry the call's entry in the transcript
 * @param {AppInfo} app
 * @param {any} client the AgentClient (appCall)
 * @param {{doc: () => Document, scroll: () => void}} view the turn views' context
 * @param {(text: string) => boolean} send sends text as the visitor's message
 * @returns {AppFrame|null}
 */
export function showApp(entry, app, client, view, send) {
  if (!entry || !app || typeof app !== 'object' || typeof client?.appCall !== 'function') return null;
  const doc = view.doc();
  return mountApp(entry, app, {
    doc,
    call: (p) => client.appCall(p),
    send,
    scroll: () => view.scroll(),
    phone: !!doc.defaultView?.matchMedia?.('(max-width: 600px)').matches,
  });
}

/**
 * Shows app under a tool call's entry (after), and serves its messages.
 * @param {Element} after the tool call's entry
 * @param {AppInfo} app
 * @param {AppHost} host
 * @returns {AppFrame|null}
 */
export function mountApp(after, app, host) {
  if (!app || typeof app.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(app.sha256) || typeof app.token !== 'string') return null;
  const doc = host.doc;
  const view = doc.defaultView;
  if (!view) return null;
  const root = /** @type {Document|ShadowRoot} */ (after.getRootNode());
  if (!styled.has(root)) {
    styled.add(root);
    // A constructed stylesheet, as the widget's own: a page's style-src does not govern it.
    const sheet = new view.CSSStyleSheet();
    sheet.replaceSync(STYLE);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }
  const box = doc.createElement('div');
  box.className = 'mcp-app' + (app.prefersBorder === false ? ' borderless' : '');
  box.setAttribute('part', 'mcp-app');
  const bar = doc.createElement('div');
  bar.className = 'app-bar';
  bar.textContent = `App: ${String(app.tool)} (${String(app.server)})`;
  const iframe = doc.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.setAttribute('referrerpolicy', 'no-referrer');
  iframe.setAttribute('allow', '');
  iframe.setAttribute('loading', 'eager');
  iframe.title = `${String(app.tool)} (an app of ${String(app.server)})`;
  // The agent's app frame: its own CSP header (the app's declared origins only), whatever the
  // page's policy; it asks for the app's document once it runs (receive).
  const src = new URL('./app-frame', import.meta.url);
  src.searchParams.set('csp', JSON.stringify(app.csp && typeof app.csp === 'object' ? app.csp : {}));
  iframe.src = src.href;
  box.append(bar, iframe);
  after.after(box);
  const win = iframe.contentWindow;
  if (!win) return null;
  const f = new AppFrame(app, host, box, iframe, win);
  // The document, by its name at the agent (content-addressed: immutable, cacheable).
  const doc_ = new URL(`./apps/${encodeURIComponent(String(app.server))}/${app.sha256}`, import.meta.url);
  doc_.searchParams.set('uri', String(app.uri));
  fetch(doc_, { credentials: 'omit', referrerPolicy: 'no-referrer' })
    .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`HTTP ${r.status}`))))
    .then((html) => f.loaded(html), () => f.unavailable());
  // Apps whose transcript was cleared (a new conversation) are forgotten.
  for (const [w, other] of frames) if (!other.iframe.isConnected) frames.delete(w);
  frames.set(win, f);
  if (!listening.has(view)) {
    listening.add(view);
    view.addEventListener('message', onMessage);
  }
  return f;
}

/** @param {MessageEvent} ev */
function onMessage(ev) {
  const f = ev.source ? frames.get(/** @type {Window} */ (ev.source)) : undefined;
  if (!f) return; // not one of our apps: not ours to read
  f.receive(ev.data);
}

/** One app on screen. */
export class AppFrame {
  #app;
  #host;
  /** @type {HTMLElement} */ box;
  /** @type {HTMLIFrameElement} */ iframe;
  #win;
  #tokens = RATE_BURST;
  #last = Date.now();
  #pending = 0;
  #initialized = false;
  #loaded = false; // the app's document was handed to the frame
  #ready = false; // the frame asked for the document
  /** @type {string|null} the app's document, once fetched */ #html = null;
  /** @type {string|null} why it was stopped */ stopped = null;
  /** counters, for tests and the console */
  stats = { received: 0, dropped: 0, calls: 0 };

  /**
   * @param {AppInfo} app
   * @param {AppHost} host
   * @param {HTMLElement} box
   * @param {HTMLIFrameElement} iframe
   * @param {Window} win
   */
  constructor(app, host, box, iframe, win) {
    this.#app = app;
    this.#host = host;
    this.box = box;
    this.iframe = iframe;
    this.#win = win;
  }

  /** @param {unknown} msg */
  #post(msg) {
    if (this.stopped) return;
    try {
      // The app's origin is opaque ("null"): '*' is the only target that reaches it; only its
      // window gets the message.
      this.#win.postMessage(msg, '*');
    } catch {
      // the app's window is gone
    }
  }

  /** @param {string|number} id @param {unknown} result */
  #reply(id, result) {
    this.#post({ jsonrpc: '2.0', id, result });
  }

  /** @param {string|number} id @param {number} code @param {string} message */
  #fail(id, code, message) {
    this.#post({ jsonrpc: '2.0', id, error: { code, message } });
  }

  /**
   * Stops the app: its frame goes, a note says why.
   * @param {string} why
   */
  stop(why) {
    if (this.stopped) return;
    this.stopped = why;
    frames.delete(this.#win);
    this.iframe.remove();
    const note = this.#host.doc.createElement('p');
    note.className = 'note';
    note.setAttribute('part', 'note');
    note.textContent = `This app was stopped: ${why}.`;
    this.box.append(note);
  }

  /**
   * The app's document came from the agent: handed to the frame once it asked for it.
   * @param {string} html
   */
  loaded(html) {
    this.#html = html;
    this.#handOver();
  }

  #handOver() {
    if (this.#loaded || !this.#ready || this.#html === null) return;
    this.#loaded = true;
    this.#post({ type: 'byomcp/app-html', html: this.#html });
  }

  /** The agent no longer has the document: a short line instead of the app. */
  unavailable() {
    if (this.stopped) return;
    this.stopped = 'unavailable';
    frames.delete(this.#win);
    this.iframe.remove();
    const note = this.#host.doc.createElement('p');
    note.className = 'note';
    note.setAttribute('part', 'note');
    note.textContent = 'This view is no longer available.';
    this.box.append(note);
  }

  /** Spends one message from the bucket; false when the app is over its rate. */
  #spend() {
    const now = Date.now();
    this.#tokens = Math.min(RATE_BURST, this.#tokens + ((now - this.#last) / 1000) * RATE_PER_SECOND);
    this.#last = now;
    this.#tokens -= 1;
    return this.#tokens >= 0;
  }

  /** @param {unknown} data a message from the app's window */
  receive(data) {
    if (this.stopped) return;
    this.stats.received++;
    if (!this.#spend()) {
      this.stop('it sent too many messages');
      return;
    }
    if (!this.#ready && data && typeof data === 'object' && /** @type {any} */ (data).type === 'byomcp/app-frame-ready') {
      this.#ready = true;
      this.#handOver();
      return;
    }
    if (!isMessage(data)) {
      this.stats.dropped++;
      return;
    }
    const m = /** @type {Record<string, any>} */ (data);
    if (typeof m.method !== 'string') return; // a response: this host asks the app nothing it waits for
    const params = m.params && typeof m.params === 'object' ? m.params : {};
    const isRequest = 'id' in m;
    if (!isRequest) {
      this.#notification(m.method, params);
      return;
    }
    const id = m.id;
    switch (m.method) {
      case 'ui/initialize':
        this.#reply(id, this.#initializeResult(params));
        break;
      case 'ping':
        this.#reply(id, {});
        break;
      case 'tools/call':
        void this.#callTool(id, params);
        break;
      case 'ui/open-link':
        this.#openLink(id, params);
        break;
      case 'ui/message':
        this.#message(id, params);
        break;
      case 'ui/request-display-mode':
        this.#reply(id, { mode: 'inline' });
        break;
      default:
        this.#fail(id, -32601, `method not supported by this host: ${String(m.method).slice(0, 64)}`);
    }
  }

  /** @param {string} method @param {Record<string, any>} params */
  #notification(method, params) {
    switch (method) {
      case 'ui/notifications/initialized':
        if (this.#initialized) return;
        this.#initialized = true;
        this.#post({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: objectOr(this.#app.input) } });
        if (this.#app.result && typeof this.#app.result === 'object') {
          this.#post({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: this.#app.result });
        }
        break;
      case 'ui/notifications/size-changed':
        this.#resize(params.height);
        break;
      default:
        // notifications/message (logs), request-teardown, …: nothing to do.
        break;
    }
  }

  /** @param {Record<string, any>} params */
  #initializeResult(params) {
    const asked = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
    const view = this.#host.doc.defaultView;
    return {
      protocolVersion: SUPPORTED.includes(asked) ? asked : APPS_PROTOCOL_VERSION,
      hostInfo: { name: 'byomcp', version: '1' },
      hostCapabilities: { openLinks: {}, serverTools: {}, logging: {}, message: { text: {} } },
      hostContext: {
        toolInfo: { tool: { name: this.#app.tool, inputSchema: { type: 'object' } } },
        theme: view?.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
        displayMode: 'inline',
        availableDisplayModes: ['inline'],
        containerDimensions: { maxHeight: this.#maxHeight(), width: this.iframe.clientWidth || undefined },
        locale: view?.navigator.language,
        timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        platform: this.#host.phone ? 'mobile' : 'web',
        userAgent: 'byomcp',
        deviceCapabilities: { touch: !!view?.matchMedia?.('(pointer: coarse)').matches, hover: !!view?.matchMedia?.('(hover: hover)').matches },
      },
    };
  }

  #maxHeight() {
    const h = this.#host.doc.defaultView?.innerHeight ?? 800;
    return Math.max(MIN_HEIGHT, Math.min(MAX_HEIGHT, Math.floor(h * 0.7)));
  }

  /** @param {unknown} height */
  #resize(height) {
    if (typeof height !== 'number' || !Number.isFinite(height)) return;
    const h = Math.round(Math.min(this.#maxHeight(), Math.max(MIN_HEIGHT, height)));
    this.iframe.style.height = `${h}px`;
    this.#host.scroll?.();
  }

  /** @param {string|number} id @param {Record<string, any>} params */
  async #callTool(id, params) {
    if (typeof params.name !== 'string' || !params.name || params.name.length > 128) {
      this.#fail(id, -32602, 'tools/call needs a tool name');
      return;
    }
    if (this.#pending >= MAX_PENDING_CALLS) {
      this.#fail(id, -32000, `at most ${MAX_PENDING_CALLS} calls of an app run at once`);
      return;
    }
    this.#pending++;
    this.stats.calls++;
    try {
      const result = await this.#host.call({ token: this.#app.token, name: params.name, arguments: objectOr(params.arguments) });
      this.#reply(id, result);
    } catch (err) {
      const e = /** @type {any} */ (err);
      this.#fail(id, typeof e?.code === 'number' ? e.code : -32603, String(e?.message ?? err));
    } finally {
      this.#pending--;
    }
  }

  /**
   * ui/open-link: the link is shown for the visitor to click; the app never navigates.
   * @param {string|number} id @param {Record<string, any>} params
   */
  #openLink(id, params) {
    /** @type {URL|null} */
    let url = null;
    try {
      url = typeof params.url === 'string' && params.url.length <= MAX_URL ? new URL(params.url) : null;
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      this.#reply(id, { isError: true });
      return;
    }
    const doc = this.#host.doc;
    const a = doc.createElement('a');
    a.href = url.href;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    a.textContent = url.href;
    this.#ask('The app offers a link: ', [a]);
    this.#reply(id, {});
  }

  /**
   * ui/message: the text the app asks to send is shown with Send and Dismiss; it is sent as the
   * visitor's message only when they press Send.
   * @param {string|number} id @param {Record<string, any>} params
   */
  #message(id, params) {
    const content = Array.isArray(params.content) ? params.content : [];
    const text = content
      .filter((c) => c && c.type === 'text' && typeof c.text === 'string')
      .map((c) => c.text)
      .join('\n')
      .trim();
    if (params.role !== 'user' || !text || text.length > MAX_MESSAGE_TEXT || this.box.querySelector('.app-ask.message')) {
      this.#reply(id, { isError: true });
      return;
    }
    const doc = this.#host.doc;
    const quote = doc.createElement('q');
    quote.textContent = text;
    const send = doc.createElement('button');
    send.type = 'button';
    send.textContent = 'Send';
    const dismiss = doc.createElement('button');
    dismiss.type = 'button';
    dismiss.textContent = 'Dismiss';
    const p = this.#ask('The app asks to send this message for you: ', [quote, doc.createElement('br'), send, dismiss], 'message');
    send.addEventListener('click', () => {
      p.remove();
      this.#reply(id, this.#host.send(text) ? {} : { isError: true });
    });
    dismiss.addEventListener('click', () => {
      p.remove();
      this.#reply(id, { isError: true });
    });
  }

  /**
   * @param {string} lead @param {Node[]} nodes @param {string} [kind]
   * @returns {HTMLElement}
   */
  #ask(lead, nodes, kind = 'link') {
    const doc = this.#host.doc;
    const p = doc.createElement('p');
    p.className = `app-ask ${kind}`;
    p.append(doc.createTextNode(lead), ...nodes);
    // One offer of each kind at a time: a new link replaces the last.
    this.box.querySelector(`.app-ask.${kind}`)?.remove();
    this.box.append(p);
    this.#host.scroll?.();
    return p;
  }
}

/**
 * A JSON-RPC 2.0 request, notification or response of a reasonable size.
 * @param {unknown} data
 */
function isMessage(data) {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return false;
  const m = /** @type {Record<string, unknown>} */ (data);
  if (m.jsonrpc !== '2.0') return false;
  const hasId = typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id));
  if (typeof m.method === 'string') {
    if (m.method.length > 128 || ('id' in m && !hasId)) return false;
  } else if (!hasId || !('result' in m || 'error' in m)) {
    return false;
  }
  let size = 0;
  try {
    size = JSON.stringify(data).length;
  } catch {
    return false;
  }
  return size <= MAX_MESSAGE_BYTES;
}

/** @param {unknown} v */
function objectOr(v) {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
}
