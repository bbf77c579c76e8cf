// The page's connection to the byomcp agent: keeps one WebSocket open with full-jitter backoff,
// serves the page's tools on it, and runs the conversation (session resume, chat, events).

import { CloseCode, ErrorCode, EventType, Method } from './protocol.js';
import { ClosedError, Peer, RpcError, toLogger } from './wsrpc.js';

/**
 * 'refused': the agent does not allow this page's origin; the client has stopped for good (a
 * refusal is configuration, not a blip): a reload, or start(), tries again.
 * @typedef {'idle'|'connecting'|'open'|'reconnecting'|'closed'|'refused'} State
 */

/**
 * @typedef {object} ChatResult
 * @property {string} turnId
 * @property {string} text
 * @property {string} stopReason see StopReason
 * @property {unknown} usage token usage as the agent reports it (absent when the turn's end was
 *   learned from its turn_end event after a reconnect)
 */

/**
 * @typedef {object} StorageLike
 * @property {(key: string) => string|null} getItem
 * @property {(key: string, value: string) => void} setItem
 * @property {(key: string) => void} removeItem
 */

/**
 * @typedef {object} AgentClientOptions
 * @property {string} url the agent's WebSocket URL (…/v1/ws)
 * @property {import('./tools.js').ToolHost} [host] the page's tools, served on every connection
 * @property {any} [WebSocketImpl] WebSocket constructor (default: the global one)
 * @property {StorageLike} [storage] where the session id and lastSeq are kept (default: sessionStorage)
 * @property {string} [storageKey]
 * @property {() => ({url: string, title: string})} [page] page context sent with agent/session
 * @property {{baseMs?: number, maxMs?: number}} [backoff] full-jitter reconnect backoff bounds
 * @property {() => number} [random] in [0, 1), for the jitter
 * @property {string[]} [protocols] WebSocket subprotocols offered
 * @property {Partial<import('./wsrpc.js').Logger>} [logger]
 * @property {number} [keepAliveMs] see KEEPALIVE_MS (0 turns the check off)
 * @property {(url: string) => Promise<any>} [fetchJSON] GETs a JSON document (default: fetch)
 */

/** How long cancel() waits for the agent's answer, in milliseconds. */
const CANCEL_TIMEOUT_MS = 10000;
/** An app's tool call may wait for the visitor's confirmation: the agent's hard maximum of a call (10 min). */
const APP_CALL_TIMEOUT_MS = 600000;

/**
 * While a turn runs, a connection silent for this long is checked with a ping; a ping not
 * answered within the same time means the network is gone (a cut cable or a sleeping Wi-Fi
 * leaves the socket looking open for minutes), and the socket is dropped and reconnected.
 */
export const KEEPALIVE_MS = 3000;

/** Why chats fail once the agent refused this page's origin. */
const REFUSED = "the agent does not allow this page's origin";

/** How long the origin check (which the next reconnect waits for) may take, in milliseconds. */
const CHECK_TIMEOUT_MS = 5000;
// While a visitor's message waits for the connection, the backoff tries at least this often.
const WAITING_MAX_MS = 4000;

/**
 * A chat() in flight.
 * @typedef {object} ChatRecord
 * @property {string} clientTurnId the id this page gave the message; the agent's turn_start echoes it
 * @property {string|null} turnId this chat's turn, once the agent named it
 * @property {((r: ChatResult) => void)|null} resolveEnd set while waiting for turn_end after a reconnect
 * @property {((e: unknown) => void)|null} rejectEnd
 * @property {ChatResult|null} ended the turn's end, from its turn_end event
 */

/**
 * The turn running when a session was opened, as the agent/session result carries it.
 * @typedef {import('./protocol.js').RunningTurn} RunningTurn
 */

/**
 * A new client turn id: unique enough that a page never reuses one (the agent only echoes it).
 * @returns {string}
 */
export function newClientTurnId() {
  const c = /** @type {any} */ (globalThis).crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  return `ct-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/**
 * The page's agent connection. Events: 'state' {detail: {state, attempt, delayMs}}, 'session'
 * {detail: {sessionId, resumed, messages, seq, running}} (running: the turn running at the agent,
 * with its events up to seq, or null; the page's first session asks for no replay, so this is
 * all there is up to seq), 'agent-event' {detail: params of agent/event},
 * 'error' {detail: {message, code}}, 'refused' {detail: {origin, message}} (the agent does not
 * allow this page's origin: learned from its /v1/origin-check when a socket fails to open; the
 * client then stops, in state 'refused', and never reconnects by itself).
 */
export class AgentClient extends EventTarget {
  #url;
  #host;
  #WebSocket;
  /** @type {StorageLike} */
  #storage;
  #storageKey;
  #page;
  #baseMs;
  #maxMs;
  #random;
  #protocols;
  #log;
  /** @type {State} */
  #state = 'idle';
  #stopped = true;
  #attempt = 0;
  /** the network or the tab came back while a socket was trying: if it fails, retry at once */
  #now = false;
  /** @type {ReturnType<typeof setTimeout>|null} */
  #timer = null;
  /** @type {any} */
  #socket = null;
  /** @type {Peer|null} */
  #peer = null;
  /** @type {string|undefined} */
  #sessionId;
  #lastSeq = 0;
  /** @type {string|null} the running turn, as events tell */
  #turnId = null;
  /** @type {Set<ChatRecord>} */
  #chats = new Set();
  /** @type {Set<{resolve: () => void, reject: (e: unknown) => void}>} */
  #openWaiters = new Set();
  /** a session has been opened on this page (later ones resume from lastSeq) */
  #opened = false;
  /** the last session result's seq: the replay after it is complete once lastSeq reaches it */
  #syncSeq = 0;
  /** @type {Set<{resolve: () => void, reject: (e: unknown) => void}>} settled once the replay after a session result is complete */
  #syncWaiters = new Set();
  /** The page is hidden (pagehide): no reconnecting until it is shown again. */
  #suspended = false;
  #pageListening = false;
  #keepAliveMs;
  #fetchJSON;
  /** @type {ReturnType<typeof setInterval>|null} */
  #watchdog = null;
  /** when the current socket last received anything (ms, Date.now()) */
  #lastRx = 0;
  #pinging = false;
  /** @type {{url?: unknown, title?: unknown}|null} the page the agent was last told of in agent/session */
  #sentPage = null;
  /** @type {Promise<void>|null} notePage's agent/session in flight */
  #noting = null;

  /** @param {AgentClientOptions} options */
  constructor({
    url,
    host,
    WebSocketImpl = globalThis.WebSocket,
    storage = defaultStorage(),
    storageKey = 'byomcp',
    page = () => ({ url: location.href, title: document.title }),
    backoff = { baseMs: 500, maxMs: 20000 },
    random = Math.random,
    protocols = ['mcp'],
    logger,
    keepAliveMs = KEEPALIVE_MS,
    fetchJSON = defaultFetchJSON,
  }) {
    super();
    if (typeof url !== 'string' || !url) throw new TypeError('AgentClient: url is required');
    if (typeof WebSocketImpl !== 'function') throw new TypeError('AgentClient: no WebSocket implementation');
    this.#url = url;
    this.#host = host;
    this.#WebSocket = WebSocketImpl;
    this.#storage = storage ?? memoryStorage();
    this.#storageKey = storageKey;
    this.#page = page;
    this.#baseMs = backoff.baseMs ?? 500;
    this.#maxMs = backoff.maxMs ?? 20000;
    this.#random = random;
    this.#protocols = protocols;
    this.#log = toLogger(logger);
    this.#keepAliveMs = keepAliveMs;
    this.#fetchJSON = fetchJSON;
    this.#load();
  }

  /** @returns {State} */
  get state() {
    return this.#state;
  }

  /** The conversation's id (stored across page loads), or undefined before the first session. */
  get sessionId() {
    return this.#sessionId;
  }

  /** The seq of the last agent/event delivered. */
  get lastSeq() {
    return this.#lastSeq;
  }

  /** Whether a turn is running (a chat() in flight, or events of an unfinished turn). */
  get busy() {
    return this.#chats.size > 0 || this.#turnId !== null;
  }

  /** The running turn's id, when events have named it; null otherwise. */
  get turnId() {
    return this.#turnId;
  }

  /** Connects and stays connected until stop(). */
  start() {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#attempt = 0;
    this.#listenToPage();
    this.#setState('connecting');
    this.#connect();
  }

  /**
   * Follows the page's life: on pagehide the socket is closed at once with 1001 (the agent then
   * knows the tab left, and the next page resumes the session without waiting for a timeout);
   * a page restored from the back/forward cache reconnects; coming back online or to the
   * foreground (a phone waking up) reconnects now instead of at the end of the backoff.
   */
  #listenToPage() {
    const win = /** @type {any} */ (globalThis);
    if (this.#pageListening || typeof win.addEventListener !== 'function') return;
    this.#pageListening = true;
    win.addEventListener('pagehide', () => {
      if (this.#stopped) return;
      this.#suspended = true;
      this.#disconnect(1001, 'page hidden');
    });
    win.addEventListener('pageshow', (/** @type {any} */ ev) => {
      if (!ev?.persisted || this.#stopped) return;
      this.#suspended = false;
      this.#reconnectNow();
    });
    win.addEventListener('online', () => this.#reconnectNow());
    // The browser knows the network is gone: do not wait for the socket to notice.
    win.addEventListener('offline', () => this.#drop('the browser went offline'));
    win.document?.addEventListener?.('visibilitychange', () => {
      if (win.document.visibilityState === 'visible') this.#reconnectNow();
    });
  }

  /**
   * Connects at once unless connected, stopped or hidden. A socket still trying (opening, or
   * failed and waiting for its origin check) is not doubled: if it fails, the next try is now,
   * not at the end of the backoff (a phone back online during a try that was bound to fail).
   */
  #reconnectNow() {
    if (this.#stopped || this.#suspended) return;
    if (this.#socket) {
      this.#now = this.#state !== 'open';
      return;
    }
    this.#clearTimer();
    this.#connect();
  }

  #clearTimer() {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
  }

  /**
   * Drops the current socket (and any reconnect timer) without reconnecting; its close event
   * is ignored.
   * @param {number} code
   * @param {string} reason
   */
  #disconnect(code, reason) {
    this.#clearTimer();
    const peer = this.#peer;
    const socket = this.#socket;
    this.#peer = null;
    this.#socket = null;
    if (peer) peer.close(code, reason);
    else if (socket) closeQuietly(socket);
  }

  /**
   * Gives up on the current socket because the network is gone (its close would come minutes
   * later, if at all), and reconnects with backoff: pending calls fail now, the running turn
   * goes on at the agent and is resumed from lastSeq.
   * @param {string} why
   */
  #drop(why) {
    if (this.#stopped || !this.#socket) return;
    this.#log.warn(`agent: connection lost: ${why}`);
    this.#disconnect(4000, why);
    if (!this.#suspended) this.#scheduleReconnect();
  }

  /**
   * While a turn runs, checks that the connection still carries something: a socket silent for
   * keepAliveMs gets a ping, and one that does not answer it within keepAliveMs is dropped.
   */
  #watch() {
    if (this.#keepAliveMs <= 0 || this.#watchdog !== null) return;
    this.#watchdog = setInterval(() => {
      const peer = this.#peer;
      if (!peer || this.#state !== 'open' || this.#pinging) return;
      if (!this.busy) return;
      if (Date.now() - this.#lastRx < this.#keepAliveMs) return;
      this.#pinging = true;
      peer
        .call(Method.Ping, {}, { timeoutMs: this.#keepAliveMs })
        .then(
          () => {
            this.#lastRx = Date.now();
          },
          (err) => {
            if (this.#peer === peer && !(err instanceof ClosedError)) this.#drop(`no answer to a ping within ${this.#keepAliveMs} ms`);
          },
        )
        .finally(() => {
          this.#pinging = false;
        });
    }, Math.max(250, Math.floor(this.#keepAliveMs / 3)));
  }

  #unwatch() {
    if (this.#watchdog !== null) clearInterval(this.#watchdog);
    this.#watchdog = null;
  }

  /** Disconnects for good; pending chats and waits reject. start() may be called again. */
  stop() {
    if (!this.#stopped) this.#halt(new ClosedError('agent client stopped'), 'closed');
  }

  /**
   * Disconnects and stops: pending chats and waits reject with err.
   * @param {Error} err
   * @param {State} state
   */
  #halt(err, state) {
    this.#stopped = true;
    this.#unwatch();
    this.#disconnect(1000, 'client stopped');
    this.#host?.detach();
    for (const w of [...this.#openWaiters]) w.reject(err);
    this.#openWaiters.clear();
    for (const c of this.#chats) c.rejectEnd?.(err);
    this.#settleSync(err);
    this.#setState(state);
  }

  /**
   * Sends one user message and resolves with the turn's result when it ends. Waits for the
   * connection when it is being (re)established. Aborting signal cancels the turn (the agent is
   * told with notifications/cancelled) and rejects with the abort reason. The message carries
   * clientTurnId (a new one when not given), which the agent's turn_start echoes: that is how
   * the turn is known to be this one. If the connection drops mid-turn, the turn goes on at the
   * agent and this resolves from its turn_end event; if it drops before the agent named the
   * turn, the next session tells whether the agent got the message (its turn running, or its
   * turn_start in the replay) and, when it did not, the message is sent again, once.
   * @param {string} text
   * @param {{signal?: AbortSignal, clientTurnId?: string}} [options]
   * @returns {Promise<ChatResult>}
   */
  async chat(text, { signal, clientTurnId = newClientTurnId() } = {}) {
    if (typeof text !== 'string') throw new TypeError('chat: text must be a string');
    /** @type {ChatRecord} */
    const record = { clientTurnId, turnId: null, resolveEnd: null, rejectEnd: null, ended: null };
    // Sent while the agent cannot be reached: try now, not at the end of a long backoff.
    if (this.#timer !== null) this.#reconnectNow();
    try {
      for (let attempt = 0; ; attempt++) {
        await this.#waitOpen(signal);
        await this.notePage(); // the turn is told of the page the visitor asks from
        await this.#waitOpen(signal); // a notePage that failed closed the socket: the next one
        const peer = /** @type {Peer} */ (this.#peer);
        this.#chats.add(record);
        try {
          return await peer.call(Method.AgentChat, { text, clientTurnId }, { signal });
        } catch (err) {
          if (!(err instanceof ClosedError) || this.#stopped || signal?.aborted) throw err;
          if (record.turnId === null) {
            // Did the agent get it? The next session says, once its replay is in.
            await this.#waitSynced(signal);
            if (record.turnId === null) {
              if (attempt > 0) throw err;
              this.#log.debug('agent: the message did not reach the agent; sending it again');
              continue;
            }
          }
          return await this.#waitEnd(record, signal);
        }
      }
    } finally {
      this.#chats.delete(record);
    }
  }

  /**
   * Tells the agent that the page's URL or title changed without a page load (a single-page
   * app's navigation, a hash change): agent/session again, for the same conversation, with the
   * page as it is now, so that the next turn's instructions name the page the visitor is on.
   * Nothing is sent while a turn runs (it began on the other page) or before a session is open;
   * chat calls it before it sends.
   * @param {{urlOnly?: boolean}} [options] urlOnly: only a new URL counts (for a watch that runs
   *   every second: a page whose title blinks or counts would send it as often)
   * @returns {Promise<void>}
   */
  notePage({ urlOnly = false } = {}) {
    if (this.#noting) return this.#noting;
    const peer = this.#peer;
    if (!peer || this.#state !== 'open' || this.#turnId !== null) return Promise.resolve();
    const page = this.#pageInfo();
    const sent = this.#sentPage;
    if (!page || (page.url === sent?.url && (urlOnly || page.title === sent?.title))) return Promise.resolve();
    this.#noting = this.#openSession(peer).finally(() => {
      this.#noting = null;
    });
    return this.#noting;
  }

  /**
   * Waits for the end of a chat's turn from its turn_end event (the agent/chat request died with
   * its socket).
   * @param {ChatRecord} record
   * @param {AbortSignal} [signal]
   * @returns {Promise<ChatResult>}
   */
  #waitEnd(record, signal) {
    if (record.ended) return Promise.resolve(record.ended);
    return new Promise((resolve, reject) => {
      record.resolveEnd = resolve;
      record.rejectEnd = reject;
      signal?.addEventListener(
        'abort',
        () => {
          reject(signal.reason);
          // The agent did not get our notifications/cancelled: the request died with the socket.
          this.cancel(record.turnId ?? undefined).catch((e) => this.#log.debug('agent: cancel after abort:', e));
        },
        { once: true },
      );
    });
  }

  /**
   * Resolves once a session is open again and the events it replays have arrived; rejects when
   * the client stops or signal aborts.
   * @param {AbortSignal} [signal]
   * @returns {Promise<void>}
   */
  #waitSynced(signal) {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#stopped) return Promise.reject(new ClosedError('agent client stopped'));
    return waitIn(this.#syncWaiters, signal);
  }

  /**
   * Settles the sync waiters: with err, or once the replay after the last session result is
   * complete (lastSeq has reached its seq).
   * @param {unknown} [err]
   */
  #settleSync(err) {
    if (!err && (this.#state !== 'open' || this.#lastSeq < this.#syncSeq)) return;
    const waiters = [...this.#syncWaiters];
    this.#syncWaiters.clear();
    for (const w of waiters) {
      if (err) w.reject(err);
      else w.resolve();
    }
  }

  /**
   * Asks the agent to stop a turn (default: the running one) with agent/cancel {turnId}; waits for
   * the connection if needed. Resolves with the agent's answer, or null when no turn is running.
   * @param {string} [turnId]
   * @returns {Promise<unknown>}
   */
  async cancel(turnId) {
    const id = turnId ?? this.#turnId ?? [...this.#chats].find((c) => c.turnId)?.turnId ?? null;
    if (id === null && this.#chats.size === 0) return null;
    return this.#call(Method.AgentCancel, id === null ? {} : { turnId: id }, CANCEL_TIMEOUT_MS);
  }

  /**
   * An MCP App's tools/call, through the agent (agent/appCall): the app's token names its
   * session and server. Resolves with the tool's CallToolResult.
   * @param {{token: string, name: string, arguments?: unknown}} params
   * @returns {Promise<unknown>}
   */
  appCall(params) {
    return this.#call(Method.AgentAppCall, params, APP_CALL_TIMEOUT_MS);
  }

  /**
   * A request to the agent once the connection is open.
   * @param {string} method
   * @param {unknown} params
   * @param {number} timeoutMs
   */
  async #call(method, params, timeoutMs) {
    await this.#waitOpen();
    return /** @type {Peer} */ (this.#peer).call(method, params, { timeoutMs });
  }

  #connect() {
    let socket;
    try {
      socket = new this.#WebSocket(this.#url, this.#protocols);
    } catch (err) {
      this.#emitError(`cannot open ${this.#url}: ${message(err)}`);
      this.#scheduleReconnect();
      return;
    }
    this.#socket = socket;
    let opened = false;
    socket.addEventListener('open', () => {
      opened = true;
      this.#lastRx = Date.now();
      if (this.#socket === socket) this.#onOpen(socket);
    });
    socket.addEventListener('message', () => {
      if (this.#socket === socket) this.#lastRx = Date.now();
    });
    socket.addEventListener('close', async (/** @type {any} */ ev) => {
      if (this.#socket !== socket) return;
      // Failed before it opened: maybe a refused origin. No retry before the agent has said,
      // and none at all once it said no: a refused page tries once. Meanwhile the closed
      // socket stays current: stop, pagehide or offline still take it.
      const refusal = opened ? null : await this.#checkOrigin();
      if (this.#socket !== socket) return;
      if (refusal) this.#refuse(refusal);
      else this.#onClose(ev);
    });
  }

  /**
   * A socket that fails before it opens may be an origin the agent refuses (the browser hides
   * the 403). Asks the agent's /v1/origin-check, which answers any origin: resolves with the
   * refusal ({origin, message}), or null when the origin is allowed or the check failed.
   * Never rejects; the default fetchJSON gives up after CHECK_TIMEOUT_MS (the reconnect waits).
   * @returns {Promise<{origin: string, message: string}|null>}
   */
  async #checkOrigin() {
    let url;
    try {
      url = new URL('/v1/origin-check', this.#url);
      url.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
    } catch {
      return null;
    }
    let res;
    try {
      res = await this.#fetchJSON(url.href);
    } catch (err) {
      this.#log.debug('agent: origin check failed:', err);
      return null;
    }
    // A check the browser sent without an Origin (a fetch from the agent's own origin carries
    // none) could not tell: it is no refusal, and the client retries as after a failed check.
    if (res?.allowed !== false || typeof res.origin !== 'string' || !res.origin) return null;
    return { origin: res.origin, message: typeof res.message === 'string' ? res.message : '' };
  }

  /**
   * The agent refused this page's origin: stops for good (pending chats and waits reject), tells
   * the developer in the console how to allow it, and the page with a 'refused' event.
   * @param {{origin: string, message: string}} detail
   */
  #refuse(detail) {
    this.#log.error(
      `agent: this page's origin ${detail.origin} is not allowed by the agent, so the assistant stays off: ` +
        `add it with --allowed-origins (env BYOMCP_ALLOWED_ORIGINS) or to its site's "origins" in sites.json (--sites), ` +
        `then reload the page. The agent says: ${detail.message}`,
    );
    this.#halt(new ClosedError(REFUSED), 'refused');
    this.dispatchEvent(new CustomEvent('refused', { detail }));
  }

  /** @param {any} socket */
  #onOpen(socket) {
    const peer = new Peer(socket, { logger: this.#log });
    this.#peer = peer;
    peer.onNotification(Method.AgentEvent, (params) => {
      if (this.#peer === peer) this.#onEvent(params);
    });
    this.#host?.attach(peer);
    this.#watch();
    void this.#openSession(peer);
  }

  /** @param {any} ev */
  #onClose(ev) {
    this.#socket = null;
    this.#peer = null;
    const code = ev?.code;
    const reason = ev?.reason;
    this.#log.debug('agent: socket closed', code, reason);
    // 1000, 1001 and CloseCode.Resume (the session is served elsewhere now) are no failure:
    // the client reconnects and resumes without a word to the user.
    if (reason && code !== 1000 && code !== 1001 && code !== CloseCode.Resume) this.#emitError(reason, code);
    if (!this.#stopped && !this.#suspended) this.#scheduleReconnect();
  }

  #scheduleReconnect() {
    this.#clearTimer();
    this.#attempt++;
    // A message waiting to be sent (a chat) keeps the retries a few seconds apart at most.
    const max = this.#openWaiters.size ? Math.min(this.#maxMs, WAITING_MAX_MS) : this.#maxMs;
    const cap = Math.min(max, this.#baseMs * 2 ** (this.#attempt - 1));
    const delayMs = this.#now ? 0 : Math.floor(this.#random() * cap);
    this.#now = false;
    this.#setState('reconnecting', delayMs);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#stopped) this.#connect();
    }, delayMs);
  }

  /**
   * Creates or resumes the conversation on a fresh connection.
   * @param {Peer} peer
   */
  async #openSession(peer) {
    const stored = this.#sessionId;
    /** @type {{sessionId?: string, lastSeq?: number, page?: unknown}} */
    const params = {};
    if (stored) {
      params.sessionId = stored;
      // A page's first session asks for no replay: the result carries the state up to its seq
      // (messages, and the running turn's events). Later ones resume from what this page saw.
      if (this.#opened) params.lastSeq = this.#lastSeq;
    }
    const page = this.#pageInfo();
    if (page) params.page = page;
    const sent = page ? { url: page.url, title: page.title } : null;
    let res;
    try {
      res = await peer.call(Method.AgentSession, params);
    } catch (err) {
      if (this.#peer !== peer || err instanceof ClosedError) return;
      const gone = err instanceof RpcError && err.code === ErrorCode.SessionNotFound;
      if (gone && stored) {
        this.#log.warn(`agent: stored session is unusable (${err.message}); starting a new one`);
        this.#forget();
        await this.#openSession(peer);
        return;
      }
      this.#emitError(`agent/session failed: ${message(err)}`, err instanceof RpcError ? err.code : undefined);
      peer.close(1000, 'session failed');
      return;
    }
    if (this.#peer !== peer) return;
    if (!res || typeof res.sessionId !== 'string' || !res.sessionId) {
      this.#emitError('agent/session answered without a sessionId');
      peer.close(1000, 'bad session result');
      return;
    }
    const seq = Number.isInteger(res.seq) ? res.seq : 0;
    const resumed = res.resumed === true && res.sessionId === stored;
    const running = runningTurn(res.running);
    if (!resumed) {
      this.#lastSeq = seq;
      const lost = new ClosedError('the conversation was lost; a new one was started');
      for (const c of this.#chats) c.rejectEnd?.(lost);
      this.#settleSync(lost);
    } else if (!this.#opened || seq < this.#lastSeq) {
      this.#lastSeq = seq;
    }
    this.#opened = true;
    this.#syncSeq = seq;
    this.#turnId = running?.turnId ?? null;
    if (running?.clientTurnId) {
      for (const c of this.#chats) if (c.clientTurnId === running.clientTurnId) c.turnId = running.turnId;
    }
    this.#sessionId = res.sessionId;
    this.#sentPage = sent;
    this.#save();
    this.#attempt = 0;
    this.#now = false;
    this.dispatchEvent(
      new CustomEvent('session', {
        detail: { sessionId: res.sessionId, resumed: res.resumed === true, messages: Array.isArray(res.messages) ? res.messages : [], seq, running },
      }),
    );
    this.#setState('open');
    for (const w of [...this.#openWaiters]) w.resolve();
    this.#openWaiters.clear();
    this.#settleSync();
  }

  /** @param {any} p params of agent/event */
  #onEvent(p) {
    if (!p || typeof p !== 'object') return;
    if (typeof p.seq === 'number') {
      if (p.sessionId && this.#sessionId && p.sessionId !== this.#sessionId) {
        this.#log.debug('agent: event of another session dropped', p.sessionId);
        return;
      }
      if (p.seq <= this.#lastSeq) return;
      this.#lastSeq = p.seq;
      this.#save();
    }
    if (typeof p.turnId === 'string' && p.turnId) {
      if (p.type === EventType.TurnEnd) {
        if (this.#turnId === p.turnId) this.#turnId = null;
        for (const c of this.#chats) {
          if (c.turnId !== p.turnId) continue;
          c.ended = { turnId: p.turnId, text: typeof p.text === 'string' ? p.text : '', stopReason: p.stopReason, usage: p.usage };
          c.resolveEnd?.(c.ended);
        }
      } else {
        this.#turnId = p.turnId;
        if (p.type === EventType.TurnStart && typeof p.clientTurnId === 'string' && p.clientTurnId) {
          for (const c of this.#chats) if (c.clientTurnId === p.clientTurnId) c.turnId = p.turnId;
        }
      }
    }
    this.dispatchEvent(new CustomEvent('agent-event', { detail: p }));
    this.#settleSync();
  }

  /**
   * Resolves when the session is open; rejects when stopped or signal aborts.
   * @param {AbortSignal} [signal]
   * @returns {Promise<void>}
   */
  #waitOpen(signal) {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#state === 'open' && this.#peer) return Promise.resolve();
    if (this.#stopped) return Promise.reject(new ClosedError(this.#state === 'refused' ? REFUSED : 'agent client is not started'));
    return waitIn(this.#openWaiters, signal);
  }

  /**
   * @param {State} state
   * @param {number} [delayMs]
   */
  #setState(state, delayMs = 0) {
    this.#state = state;
    this.dispatchEvent(new CustomEvent('state', { detail: { state, attempt: this.#attempt, delayMs } }));
  }

  /**
   * @param {string} msg
   * @param {number} [code]
   */
  #emitError(msg, code) {
    this.#log.warn(`agent: ${msg}`);
    this.dispatchEvent(new CustomEvent('error', { detail: { message: msg, code } }));
  }

  #pageInfo() {
    try {
      return this.#page?.();
    } catch {
      return undefined;
    }
  }

  #load() {
    try {
      const raw = this.#storage.getItem(this.#storageKey);
      if (!raw) return;
      const v = JSON.parse(raw);
      if (typeof v?.sessionId === 'string' && v.sessionId) {
        this.#sessionId = v.sessionId;
        this.#lastSeq = Number.isInteger(v.lastSeq) && v.lastSeq >= 0 ? v.lastSeq : 0;
      }
    } catch (err) {
      this.#log.debug('agent: stored session unreadable:', err);
    }
  }

  #save() {
    try {
      this.#storage.setItem(this.#storageKey, JSON.stringify({ sessionId: this.#sessionId, lastSeq: this.#lastSeq }));
    } catch (err) {
      this.#log.debug('agent: cannot store the session:', err);
    }
  }

  #forget() {
    this.#sessionId = undefined;
    this.#lastSeq = 0;
    this.#turnId = null;
    try {
      this.#storage.removeItem(this.#storageKey);
    } catch (err) {
      this.#log.debug('agent: cannot clear the stored session:', err);
    }
  }
}

/**
 * The running turn of an agent/session result, checked: null when absent or malformed.
 * @param {any} r
 * @returns {RunningTurn|null}
 */
function runningTurn(r) {
  if (!r || typeof r !== 'object' || typeof r.turnId !== 'string' || !r.turnId) return null;
  /** @type {RunningTurn} */
  const t = { turnId: r.turnId, events: Array.isArray(r.events) ? r.events.filter((/** @type {any} */ e) => e && typeof e === 'object' && typeof e.type === 'string') : [] };
  if (typeof r.clientTurnId === 'string' && r.clientTurnId) t.clientTurnId = r.clientTurnId;
  return t;
}

/** sessionStorage when the page may use it (sandboxed frames throw on access). */
function defaultStorage() {
  try {
    return globalThis.sessionStorage ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * GETs url and parses its JSON, without credentials (the check endpoint answers any origin).
 * @param {string} url
 */
async function defaultFetchJSON(url) {
  const res = await fetch(url, { credentials: 'omit', cache: 'no-store', signal: AbortSignal.timeout?.(CHECK_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

/** @returns {StorageLike} */
function memoryStorage() {
  const m = new Map();
  return {
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem: (k, v) => void m.set(k, String(v)),
    removeItem: (k) => void m.delete(k),
  };
}

/** @param {any} socket */
function closeQuietly(socket) {
  try {
    socket.close(1000, 'client stopped');
  } catch {
    // Already closed or never opened.
  }
}

/** @param {unknown} err */
function message(err) {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A promise settled through a waiter put in waiters (resolve() or reject(e), by whoever owns
 * the set), or rejected with signal's reason when it aborts first (the waiter is then removed).
 * @param {Set<{resolve: () => void, reject: (e: unknown) => void}>} waiters
 * @param {AbortSignal} [signal]
 * @returns {Promise<void>}
 */
function waitIn(waiters, signal) {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      waiters.delete(w);
      reject(signal?.reason);
    };
    const w = {
      resolve: () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      /** @param {unknown} e */
      reject: (e) => {
        signal?.removeEventListener('abort', onAbort);
        reject(e);
      },
    };
    waiters.add(w);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
