// @ts-check
/**
 * @file The conversation `<byomcp-chat>` shows: the turns of the agent's session on screen,
 * kept in step with the AgentClient's session results and agent/event notifications, and the
 * visitor's part in them (send, stop, retry). The shell (chat-element.js) owns the panel.
 *
 * The agent's log is the only source: a page's first session shows the stored messages of the
 * finished turns and the running turn from the snapshot the agent/session result carries (its
 * events up to the result's seq); every later event is applied once, as it comes (the client
 * drops events it has seen by seq). A message this page sends carries a client turn id that the
 * turn's turn_start echoes, which is how its events find the visitor's message on screen.
 */

import { EventType, StopReason, ErrorCode } from './protocol.js';
import { ClosedError, RpcError } from './wsrpc.js';
import { format } from './strings.js';
import { newClientTurnId } from './agent.js';
import { groupMessages } from './transcript.js';
import { TurnView, make, makeNote } from './turn-view.js';
import { isDeclined } from './tools.js';

/** How long after a Stop the widget waits for the agent's turn_end before ending the turn itself. */
const STOP_FALLBACK_MS = 5000;
/**
 * What the conversation needs from its element.
 * @typedef {object} ConversationHost
 * @property {import('./turn-view.js').ViewContext} view
 * @property {HTMLElement} log where turns go
 * @property {() => string} state the connection state
 * @property {() => void} refresh shows the connection state again (the running turn changed)
 * @property {(view: TurnView|null) => void} activeChanged a turn started or ended
 * @property {() => void} turnEnded a turn ended (badge, scroll)
 * @property {(text: string) => void} announce
 * @property {(name: unknown) => void} toolCalled a tool call started (the phone's bottom sheet)
 * @property {Storage|null} [storage] where the calls the visitor allowed are remembered (sessionStorage)
 */

/** @type {Promise<typeof import('./mcp-app.js')>|null} mcp-app.js, once an app was shown */
let appModule = null;

/** sessionStorage key of the calls the visitor allowed in this tab's conversation: {s: sessionId, ids: callId[]}. */
const ALLOWED_KEY = 'byomcp:allowed';

/** How many allowed calls a tab remembers (the latest). */
const MAX_ALLOWED = 200;

/**
 * The agent's limit on one message: 32 KiB of UTF-8 (docs/operating.md, "Safety defaults"; over it
 * agent/chat fails with -32004). strings.js's errorTooLong names it.
 */
const MAX_TEXT = 32768;

/** The turns on screen and the visitor's part in them. */
export class Conversation {
  #host;
  /** @type {any} */ #client;
  /** @type {Map<string, TurnView>} */ #views = new Map();
  /** @type {TurnView|null} */ #active = null;
  /** @type {string|null} */ #sessionId = null;
  #lastUserText = '';
  /** @type {Set<string>} */ #rejected = new Set();
  /** @type {string[]} */ #allowed = []; // calls of this session the visitor allowed here (ALLOWED_KEY)
  /** @type {HTMLElement|undefined} */ #tooLong; // the error tooLong showed last
  #retry = () => {
    if (this.#active || !this.#lastUserText) return false;
    void this.send(this.#lastUserText);
    return true;
  };

  /**
   * @param {ConversationHost} host
   * @param {any} client the AgentClient
   */
  constructor(host, client) {
    this.#host = host;
    this.#client = client;
    client.addEventListener('session', (/** @type {any} */ e) => this.#onSession(e.detail));
    client.addEventListener('agent-event', (/** @type {any} */ e) => this.#onEvent(e.detail));
  }

  /** The running turn on screen, or null. */
  get active() {
    return this.#active;
  }

  /**
   * Remembers that the visitor allowed a call (its confirmation card said "You allowed …"), so
   * that the note comes back when the transcript is restored on this tab's next page.
   * @param {string} callId
   */
  noteAllowed(callId) {
    if (!this.#sessionId || this.#allowed.includes(callId)) return;
    this.#allowed = [...this.#allowed, callId].slice(-MAX_ALLOWED);
    try {
      this.#host.storage?.setItem(ALLOWED_KEY, JSON.stringify({ s: this.#sessionId, ids: this.#allowed }));
    } catch {
      // A full or refused storage loses the note on reload, nothing else.
    }
  }

  /** The calls this tab allowed in session id, as noteAllowed stored them. */
  #loadAllowed(/** @type {string} */ id) {
    try {
      const v = JSON.parse(this.#host.storage?.getItem(ALLOWED_KEY) ?? 'null');
      if (v && v.s === id && Array.isArray(v.ids)) return v.ids.filter((/** @type {unknown} */ x) => typeof x === 'string').slice(-MAX_ALLOWED);
    } catch {
      // Unreadable: as if nothing was allowed.
    }
    return [];
  }

  #s() {
    return this.#host.view.strings();
  }

  /**
   * Sends a message as the user, unless a turn is running.
   * @param {string} text
   * @returns {Promise<void>} settles when the turn ends
   */
  async send(text) {
    const t = text.trim();
    if (!t || this.#active || this.tooLong(t)) return;
    this.#tooLong?.remove();
    this.#lastUserText = t;
    const view = this.#newView(null, t);
    view.clientTurnId = newClientTurnId();
    view.abort = new AbortController();
    view.chatLive = true;
    this.#setActive(view);
    this.#markQueued(view);
    this.#host.view.scroll(true);
    await this.#runChat(view, t);
  }

  /**
   * Whether text is over the agent's limit, which no retry can change. Such a message is not
   * sent (no bubble, no Retry): the visitor reads that it is too long and the limit, once,
   * and the message box keeps it to be shortened (chat-element.js).
   * @param {string} text
   */
  tooLong(text) {
    const over = new TextEncoder().encode(text.trim()).length > MAX_TEXT;
    if (over) {
      this.#tooLong?.remove();
      this.#tooLong = make(this.#host.view.doc(), 'p', 'error', this.#s().errorTooLong);
      this.#tooLong.setAttribute('role', 'alert');
      this.#host.log.append(this.#tooLong);
      this.#host.view.scroll(true);
    }
    return over;
  }

  /**
   * Shows whether a turn's message is waiting for the connection (instead of typing dots).
   * @param {TurnView} view
   */
  #markQueued(view) {
    if (this.#host.state() === 'open') {
      view.setThinking(true);
      return;
    }
    view.setQueued(true, this.#s().queued);
    this.#host.refresh();
  }

  /**
   * Sends the view's message and ends the view with the turn's result.
   * @param {TurnView} view
   * @param {string} t
   */
  async #runChat(view, t) {
    try {
      const res = await this.#client.chat(t, { signal: /** @type {AbortController} */ (view.abort).signal, clientTurnId: view.clientTurnId });
      view.chatLive = false;
      if (!view.done) {
        if (!view.id && res?.turnId) this.#bind(view, res.turnId);
        this.#endTurn(view, res?.stopReason ?? StopReason.End, res?.text ?? '');
      }
    } catch (err) {
      view.chatLive = false;
      if (view.done) return;
      if (view.abort?.signal.aborted) {
        this.#stopFallback(view);
        return;
      }
      // Retry, except for a message the agent will never take (over MAX_TEXT, or any on a page
      // whose origin it refuses).
      this.#showError(view, this.#errorText(err), /** @type {any} */ (err)?.code !== ErrorCode.TextTooLong && this.#host.state() !== 'refused');
      this.#endTurn(view, StopReason.Error, '');
    }
  }

  /** Stops the running turn. */
  stop() {
    const view = this.#active;
    if (!view || view.done || view.stopping) return;
    view.stopping = true;
    if (view.chatLive && view.abort && !view.abort.signal.aborted) {
      view.abort.abort();
    } else {
      this.#client?.cancel(view.id ?? undefined).catch((/** @type {unknown} */ err) => console.warn('byomcp: cancel failed', err));
      this.#stopFallback(view);
    }
  }

  /**
   * Ends a stopped turn locally if the agent's turn_end does not come in time.
   * @param {TurnView} view
   */
  #stopFallback(view) {
    clearTimeout(view.stopTimer);
    view.stopTimer = setTimeout(() => {
      if (!view.done) this.#endTurn(view, StopReason.Cancelled, '');
    }, STOP_FALLBACK_MS);
  }

  // ---- client events --------------------------------------------------------------------

  /**
   * A session was opened. On the page's first one (or when the agent lost ours), the transcript
   * is rebuilt from the result alone: the finished turns from the stored messages, the running
   * turn from its snapshot. On a reconnect the transcript stays: the replay brings what was missed.
   * @param {{sessionId: string, resumed: boolean, messages: import('./transcript.js').StoredMessage[], seq: number,
   *   running: import('./protocol.js').RunningTurn|null}} detail
   */
  #onSession(detail) {
    if (this.#sessionId !== null && this.#sessionId === detail.sessionId) return;
    this.#clear();
    this.#sessionId = detail.sessionId;
    this.#allowed = this.#loadAllowed(detail.sessionId);
    const running = detail.running ?? null;
    const messages = Array.isArray(detail.messages) ? detail.messages : [];
    // The running turn's messages so far are in its snapshot too: it is shown from there.
    const finished = running ? messages.filter((m) => m?.turnId !== running.turnId) : messages;
    const turns = groupMessages(finished);
    turns.forEach((t, i) => this.#restoreTurn(t, i === turns.length - 1 && !running));
    if (running) {
      for (const e of running.events) this.#apply({ ...e, turnId: running.turnId }, true);
      this.#views.get(running.turnId)?.flushText();
    }
    this.#host.view.scroll(true);
  }

  /** @param {any} e params of an agent/event */
  #onEvent(e) {
    if (!e || typeof e !== 'object') return;
    if (e.type === EventType.ToolRejected) this.#onToolRejected(e);
    else this.#apply(e);
  }

  /**
   * @param {any} e
   * @param {boolean} [restored] e is from the snapshot of a turn that ran before this page
   */
  #apply(e, restored = false) {
    const view = this.#viewFor(e);
    if (view.done) return;
    switch (e.type) {
      case EventType.TurnStart:
        this.#adoptIfIdle(view);
        break;
      case EventType.TextDelta:
        if (typeof e.delta !== 'string' || !e.delta) break;
        this.#adoptIfIdle(view);
        view.setThinking(false);
        view.appendText(e.delta);
        this.#host.view.scroll();
        break;
      case EventType.ToolCall:
        this.#adoptIfIdle(view);
        view.endText();
        view.setThinking(false);
        view.toolCall(e.callId, e.name, e.arguments);
        this.#host.toolCalled(e.name);
        break;
      case EventType.ToolResult:
        view.toolResult(e.callId, e.name, e.isError === true, e.text, { restored, allowed: restored && this.#allowed.includes(String(e.callId ?? '')) });
        if (e.app) this.#showApp(view, e);
        if (!view.done) view.setThinking(true);
        break;
      case EventType.Error:
        this.#showError(view, typeof e.message === 'string' && e.message ? e.message : this.#s().errorGeneric);
        break;
      case EventType.TurnEnd:
        this.#endTurn(view, e.stopReason, typeof e.text === 'string' ? e.text : '');
        break;
      default:
        // Clients ignore event types they do not know.
        break;
    }
  }

  /**
   * Shows a tool result's MCP App under its call (mcp-app.js, loaded now the first time).
   * @param {TurnView} view
   * @param {any} e
   */
  #showApp(view, e) {
    (appModule ??= import('./mcp-app.js')).then(
      (m) => m.showApp(view.tools.get(String(e.callId ?? '')), e.app, this.#client, this.#host.view, (/** @type {string} */ t) => !this.#active && (void this.send(t), true)),
      () => {},
    );
  }

  /** @param {any} e */
  #onToolRejected(e) {
    const name = String(e.name ?? '');
    const reason = String(e.reason ?? '');
    console.warn(`byomcp: page tool ${JSON.stringify(name)} was rejected by the agent: ${reason}`);
    const key = `${name}\u0000${reason}`;
    if (this.#rejected.has(key)) return;
    this.#rejected.add(key);
    const note = makeNote(this.#host.view.doc(), format(this.#s().toolRejected, { name }));
    note.classList.add('rejected');
    note.title = reason;
    this.#host.log.append(note);
    this.#host.view.scroll();
  }

  // ---- turns ----------------------------------------------------------------------------

  /**
   * @param {string|null} id
   * @param {string|null} userText
   * @returns {TurnView}
   */
  #newView(id, userText) {
    const view = new TurnView(this.#host.view, id, userText);
    this.#host.log.append(view.el);
    if (id) this.#views.set(id, view);
    return view;
  }

  /**
   * @param {TurnView} view
   * @param {string} id
   */
  #bind(view, id) {
    view.id = id;
    view.setQueued(false);
    this.#views.set(id, view);
  }

  /**
   * The view an event belongs to: known by its turnId; for a turn_start, the message this page
   * sent with the clientTurnId it echoes; else a new one (a turn this page did not send: the
   * snapshot's, or one started before this page loaded).
   * @param {any} e
   * @returns {TurnView}
   */
  #viewFor(e) {
    const id = typeof e.turnId === 'string' && e.turnId ? e.turnId : null;
    const known = id ? this.#views.get(id) : undefined;
    if (known) return known;
    const a = this.#active;
    if (a && !a.id && e.type === EventType.TurnStart && typeof e.clientTurnId === 'string' && e.clientTurnId === a.clientTurnId) {
      if (id) this.#bind(a, id);
      return a;
    }
    const userText = e.type === EventType.TurnStart && typeof e.text === 'string' ? e.text : null;
    if (userText) this.#lastUserText = userText;
    return this.#newView(id, userText);
  }

  /**
   * Makes a turn that is running without this page having sent it (the snapshot's, or one
   * replayed) the active one, so Stop works on it.
   * @param {TurnView} view
   */
  #adoptIfIdle(view) {
    if (!this.#active && !view.done) {
      this.#setActive(view);
      view.setThinking(true);
    }
  }

  /** @param {TurnView|null} view */
  #setActive(view) {
    this.#active = view;
    this.#host.activeChanged(view);
  }

  /**
   * @param {TurnView} view
   * @param {string} stopReason
   * @param {string} text the turn's final text, as the agent reports it
   */
  #endTurn(view, stopReason, text) {
    if (view.done) return;
    view.setQueued(false); // an ended turn waits for nothing (a refused page's message failed)
    const answer = view.finish(stopReason, text, this.#lastUserText ? this.#retry : null);
    if (answer) this.#host.announce(format(this.#s().answerAnnouncement, { text: answer }));
    if (this.#active === view) this.#setActive(null);
    this.#host.turnEnded();
  }

  /**
   * @param {TurnView} view
   * @param {string} message
   * @param {boolean} [retry] offer Retry (when there is a message to send again)
   */
  #showError(view, message, retry = true) {
    view.showError(message, retry && this.#lastUserText ? this.#retry : null);
  }

  /**
   * @param {unknown} err
   * @returns {string}
   */
  #errorText(err) {
    const s = this.#s();
    if (err instanceof RpcError) {
      if (err.code === ErrorCode.TurnInProgress) return s.errorBusy;
      if (err.code === ErrorCode.RateLimited) return s.errorRateLimited;
      if (err.code === ErrorCode.TextTooLong) return s.errorTooLong;
      return err.message || s.errorGeneric;
    }
    if (err instanceof ClosedError) return this.#host.state() === 'refused' ? s.refusedOrigin : s.errorNotSent;
    return err instanceof Error && err.message ? err.message : s.errorGeneric;
  }

  /**
   * Shows a finished turn from its stored messages.
   * @param {import('./transcript.js').RestoredTurn} t
   * @param {boolean} last it is the conversation's last turn (its error offers Retry)
   */
  #restoreTurn(t, last) {
    const view = this.#newView(t.turnId, t.userText);
    view.done = true;
    if (t.userText) this.#lastUserText = t.userText;
    for (const item of t.items) {
      if (item.kind === 'text') {
        view.addText(item.text);
      } else {
        const declined = isDeclined(item.isError, item.result);
        const state = item.result !== undefined ? (declined ? 'declined' : item.isError ? 'error' : 'ok') : 'interrupted';
        view.toolCall(item.callId, item.name, item.args, item.result !== undefined ? { result: item.result, state } : { state });
        const d = view.tools.get(item.callId);
        // The confirmation's answer: the declined one is in the result; an allowed one was
        // remembered by this tab (noteAllowed).
        if (declined && d) view.declinedNote(d);
        else if (d && item.result !== undefined && this.#allowed.includes(String(item.callId ?? ''))) view.allowedNote(d);
      }
    }
    // How the turn ended when not with its answer, as the agent stored it (messages' end).
    const end = t.end;
    if (end?.stopReason === StopReason.Error) this.#showError(view, end.error || this.#s().errorGeneric, last);
    else if (end?.stopReason === StopReason.Cancelled) view.addNote(this.#s().stopped);
    else if (end?.stopReason === StopReason.MaxIterations) view.addNote(this.#s().maxIterations);
  }

  #clear() {
    this.#views.clear();
    if (this.#active) {
      this.#active.done = true;
      this.#setActive(null);
    }
    this.#host.log.replaceChildren();
  }
}
