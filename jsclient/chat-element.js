// @ts-check
/**
 * @file The `<byomcp-chat>` custom element: the chat panel a visitor talks to the agent with.
 * It renders an AgentClient's session and events (streamed text, tool calls, errors,
 * confirmations) in a Shadow DOM themed by CSS variables and ::part, and is keyboard accessible.
 * This file is the shell (panel, composer, connection state, confirmations); the parts are
 * chat-style.js (look and markup), transcript.js (stored messages as turns), turn-view.js (one
 * turn on screen), conversation.js (the turns in step with the agent), scroller.js and
 * confirm-card.js; the connection's status line and banner are shown here (showConnection).
 *
 * Theming: --byomcp-accent, --byomcp-accent-fg, --byomcp-bg, --byomcp-fg, --byomcp-muted,
 * --byomcp-border, --byomcp-surface, --byomcp-font, --byomcp-radius, --byomcp-width,
 * --byomcp-height, --byomcp-offset, --byomcp-z-index; parts: launcher, panel, header, title,
 * status, close, banner, transcript, message, user, assistant, tool, note, error, retry, confirm,
 * confirm-summary, confirm-edit, confirm-reason, confirm-ok, confirm-cancel, input-form (a tool's requestUserInput
 * form; its input-link, input-send, input-decline, input-cancel, input-done), composer, input, send, stop,
 * suggestion, footer.
 */

import { DEFAULT_STRINGS, resolveStrings } from './strings.js';
import { humanize, toolLabel } from './labels.js';
import { Dock, adoptStyle } from './layout.js';

import { loadCard } from './tools.js';
import { STYLE, TEMPLATE } from './chat-style.js';
import { Scroller } from './scroller.js';
import { Conversation } from './conversation.js';
import { make, makeNote } from './turn-view.js';

export { prettyJSON, unwrapToolOutput, groupMessages } from './transcript.js';

/** The panel's static markup as the page accepts it: see defineChatElement. */
let markup = (/** @type {string} */ html) => /** @type {any} */ (html);

/** sessionStorage key remembering whether the panel was open, so it stays open across pages. */
const OPEN_KEY = 'byomcp:open';

const Base = /** @type {typeof HTMLElement} */ (globalThis.HTMLElement ?? class {});

/**
 * The chat widget. Call attach() with an AgentClient (and its ToolHost) to bring it to life.
 */
export class ChatElement extends Base {
  /** @type {ShadowRoot} */ #root;
  /** @type {Record<string, string>} */ #s = { ...DEFAULT_STRINGS };
  /** @type {any} */ #client = null;
  /** @type {Storage|null} */ #storage = null;
  /** @type {Record<string, HTMLElement>} */ #el = {};
  /** @type {Conversation|null} */ #conv = null;
  #scroller;
  #pendingConfirms = 0;
  #cardStyled = false;
  /** @type {string} */ #state = 'idle';
  /** @type {(name: string) => any} */ #toolInfoFn = () => null;
  /** @type {Dock|null} */ #dock = null;
  /** @type {MediaQueryList|undefined} a phone: the open panel is full screen (chat-style.js) */
  #phone = globalThis.matchMedia?.('(max-width: 600px)');
  /** @type {Element[]|null} while the panel is a modal dialog: the page's elements it made inert */
  #inert = null;

  constructor() {
    super();
    // An element widget.js put on the page before this class was defined already has a shadow
    // root (holding the launcher alone): it is upgraded in place.
    this.#root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    this.#root.innerHTML = markup(TEMPLATE); // static markup only; all text below goes in via textContent
    adoptStyle(this.#root, STYLE, true); // the launcher's sheet goes
    const q = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (this.#root.querySelector(sel));
    this.#el = {
      launcher: q('.launcher'),
      badge: q('.badge'),
      panel: q('.panel'),
      title: q('.title'),
      status: q('.status'),
      statusText: q('.status-text'),
      close: q('.close'),
      banner: q('.banner'),
      bannerText: q('.banner-text'),
      transcript: q('.transcript'),
      newMessages: q('.new-messages'),
      greeting: q('.greeting'),
      suggestions: q('.suggestions'),
      log: q('.log'),
      form: q('.composer'),
      input: q('.input'),
      send: q('.send'),
      stop: q('.stop'),
      footer: q('.footer'),
      live: q('.live'),
    };
    this.#scroller = new Scroller(this.#el.transcript, this.#el.log, this.#el.newMessages);
    this.#applyStrings();
    this.#wire();
    this.#phone?.addEventListener?.('change', () => this.#setSheet(false));
  }

  /**
   * Connects the element to an agent client and configures it.
   * toolInfo(name) returns what the page registered for a tool (title, inputSchema, annotations)
   * or null; layout is the data-layout choice (see layout.js).
   * @param {{client: any, strings?: Record<string, string>, suggestions?: string[], storage?: Storage|null,
   *   toolInfo?: (name: string) => any, layout?: 'auto'|'docked'|'floating'}} options
   */
  attach({ client, strings, suggestions = [], storage = safeSessionStorage(), toolInfo, layout = 'auto' }) {
    if (this.#client) throw new Error('byomcp-chat: already attached');
    this.#client = client;
    this.#storage = storage;
    if (typeof toolInfo === 'function') this.#toolInfoFn = toolInfo;
    this.#dock = new Dock(this, layout);
    this.#s = resolveStrings(strings);
    this.#applyStrings();
    this.#renderSuggestions(suggestions);
    client.addEventListener('state', (/** @type {any} */ e) => this.#onState(e.detail));
    client.addEventListener('error', (/** @type {any} */ e) => console.warn('byomcp:', e.detail?.message ?? e.detail));
    const log = this.#el.log;
    this.#conv = new Conversation(
      {
        view: {
          doc: () => this.#doc(),
          strings: () => this.#s,
          scroll: (force) => this.#scroller.toEnd(force),
          toolName: (name) => {
            const label = toolLabel(name, this.#toolInfo(name));
            // A name made readable ("Search cars") reads inside a sentence in lower case; a title stays.
            return label === humanize(name) ? label.charAt(0).toLowerCase() + label.slice(1) : label;
          },
          toolLabel: (name) => toolLabel(name, this.#toolInfo(name)),
        },
        log,
        state: () => this.#state,
        refresh: () => this.#onState({ state: this.#state }),
        activeChanged: (view) => {
          this.#setBusy(!!view);
          // The phone's bottom sheet (a page tool changed the page) stays while the answer comes
          // in, and is full screen again once the turn is over.
          if (!view) this.#setSheet(false);
        },
        turnEnded: () => {
          if (!this.isOpen) this.#el.badge.hidden = false;
          this.#onState({ state: this.#state });
          this.#scroller.toEnd();
        },
        announce: (text) => this.#announce(text),
        toolCalled: (name) => {
          if (this.#changesPage(name)) this.#setSheet(true);
        },
        storage: this.#storage,
      },
      client,
    );
    // The greeting and suggestions show until the transcript has something.
    new MutationObserver(() => this.#el.transcript.classList.toggle('has-messages', log.childElementCount > 0)).observe(log, { childList: true });
    this.#onState({ state: client.state });
    this.#setBusy(false);
    if (this.#storage?.getItem(OPEN_KEY) === '1') this.open({ focus: false });
  }

  /**
   * Applies settings that arrive after attach (the site's, from the agent's GET /v1/site):
   * strings replace the attached ones (the caller merges what must win), suggestions replace
   * the buttons.
   * @param {{strings?: Record<string, string>, suggestions?: string[]}} options
   */
  configure({ strings, suggestions }) {
    if (strings) {
      this.#s = resolveStrings(strings);
      this.#applyStrings();
    }
    if (suggestions) this.#renderSuggestions(suggestions);
  }

  /** Whether the panel is open. */
  get isOpen() {
    return this.hasAttribute('open');
  }

  /**
   * Opens the panel.
   * @param {{focus?: boolean}} [options] focus the message box (default true)
   */
  open({ focus = true } = {}) {
    if (!this.isOpen) {
      this.setAttribute('open', '');
      this.#el.launcher.setAttribute('aria-expanded', 'true');
      this.#el.launcher.setAttribute('aria-label', this.#s.launcherClose);
      this.#el.badge.hidden = true;
      this.#remember(true);
      this.#dock?.setOpen(true);
      this.#setSheet(false);
      this.#scroller.toEnd(true);
    }
    if (focus) this.#el.input.focus();
  }

  /**
   * Closes the panel.
   * @param {{focusLauncher?: boolean}} [options] move focus to the launcher (default true)
   */
  close({ focusLauncher = true } = {}) {
    if (this.isOpen) {
      this.removeAttribute('open');
      this.#el.launcher.setAttribute('aria-expanded', 'false');
      this.#el.launcher.setAttribute('aria-label', this.#s.launcherOpen);
      this.#remember(false);
      this.#dock?.setOpen(false);
      this.#setSheet(false);
    }
    if (focusLauncher) this.#el.launcher.focus();
  }

  /** Opens the panel when closed, closes it when open. */
  toggle() {
    if (this.isOpen) this.close();
    else this.open();
  }

  /**
   * Sends a message as the user (as if typed), unless a turn is running.
   * @param {string} text
   * @returns {Promise<void>} settles when the turn ends
   */
  async send(text) {
    await this.#conv?.send(text);
  }

  /**
   * Asks the user to confirm a tool call inside the panel (opening it when closed), with the
   * confirmation card (confirm-card.js, loaded now the first time). Resolves with the answer:
   * approved on Confirm (with the arguments when the visitor edited them), not approved on
   * Cancel or Escape (with the visitor's reason when they gave one) or when signal aborts (the
   * card is then withdrawn).
   * @param {{name: string, args?: unknown, annotations?: unknown, signal?: AbortSignal, tool?: import('./labels.js').ToolInfo}} request
   *   tool: what the page registered (title, inputSchema, _meta), to label the call; looked up
   *   with the toolInfo function given to attach() when absent
   * @returns {Promise<import('./confirm-card.js').Answer>}
   */
  async confirm({ name, args, signal, tool }) {
    if (signal?.aborted) return { approved: false };
    const { askConfirmation } = await this.#cards();
    if (signal?.aborted) return { approved: false };
    const view = this.#running();
    const info = tool ?? this.#toolInfo(name);
    /** @type {string|null} */ let callId = null; // the call's entry the card follows
    const answer = await askConfirmation({
      doc: this.#doc(),
      strings: this.#s,
      name,
      label: toolLabel(name, info),
      args,
      info,
      humanize,
      signal,
      place: (card) => (callId = this.#placeCard(card, view, name)),
      announce: (text) => this.#announce(text),
      settled: (card, note) => this.#settleCard(card, note),
    });
    // An allowed call keeps its "You allowed …" note after a reload (a declined one's result says so).
    if (answer.approved && callId) this.#conv?.noteAllowed(callId);
    return answer;
  }

  /**
   * Shows a page tool's requestUserInput (a form or a link, confirm-card.js, loaded now the first
   * time) in the panel like a confirmation card, one at a time; resolves with the answer.
   * @param {{name: string, tool?: any, signal?: AbortSignal, mode: 'form'|'url', message: string, requestedSchema?: any, url?: string}} request
   * @returns {Promise<import('./confirm-card.js').InputAnswer>}
   */
  async askInput(request) {
    const { askInput } = await this.#cards();
    const view = this.#running();
    return askInput({
      owner: this,
      doc: this.#doc(),
      strings: this.#s,
      label: toolLabel(request.name, request.tool ?? this.#toolInfo(request.name)),
      request: /** @type {any} */ (request),
      signal: request.signal,
      place: (el) => this.#placeCard(el, view, request.name),
      announce: (text) => this.#announce(text),
      settled: (el, note) => this.#settleCard(el, note),
    });
  }

  /** The card's module (loaded now the first time), its style adopted. */
  async #cards() {
    const m = await loadCard();
    if (!this.#cardStyled) adoptStyle(this.#root, m.CARD_STYLE);
    this.#cardStyled = true;
    return m;
  }

  /** The running turn's view, or null. */
  #running() {
    const active = this.#conv?.active;
    return active && !active.done ? active : null;
  }

  /**
   * Puts a card (or a form) after the call's running entry, else at the end of the running
   * turn, and shows it; returns the call's id when it found the entry.
   * @param {HTMLElement} card
   * @param {import('./turn-view.js').TurnView|null} view
   * @param {string} name
   */
  #placeCard(card, view, name) {
    const entry = view ? [...view.tools].reverse().find(([, d]) => d.dataset.name === name && d.dataset.state === 'running') : undefined;
    const anchor = entry?.[1];
    if (anchor) anchor.after(card);
    else (view ? view.body : this.#el.log).append(card);
    this.#pendingConfirms++;
    // The visitor must see the whole card: the panel opens full size (not as a bottom
    // sheet), and the card is scrolled into view now and after the layout settles.
    this.#setSheet(false);
    if (!this.isOpen) this.open({ focus: false });
    this.#scroller.reveal(card);
    return entry?.[0] ?? null;
  }

  /** Replaces an answered card with its note. @param {HTMLElement} card @param {string} note */
  #settleCard(card, note) {
    this.#pendingConfirms--;
    const hadFocus = this.#root.activeElement && card.contains(this.#root.activeElement);
    card.replaceWith(makeNote(this.#doc(), note));
    if (hadFocus) this.#el.input.focus();
  }

  // ---- wiring ---------------------------------------------------------------------------

  #wire() {
    const el = this.#el;
    el.launcher.addEventListener('click', () => this.toggle());
    el.close.addEventListener('click', () => this.close());
    el.panel.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !e.defaultPrevented) {
        e.preventDefault();
        this.close();
      }
      // A modal dialog (full screen, see #setSheet): Tab and Shift+Tab go round the panel, from
      // its last stop (Stop or Send, or the message box while Stop is disabled) to its first
      // (Close) and back.
      if (e.key === 'Tab' && this.#inert) {
        const stop = /** @type {HTMLButtonElement} */ (el.stop);
        const last = stop.hidden ? el.send : stop.disabled ? el.input : stop;
        const [from, to] = e.shiftKey ? [el.close, last] : [last, el.close];
        if (this.#root.activeElement === from) {
          e.preventDefault();
          to.focus();
        }
      }
    });
    el.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.#submit();
    });
    el.input.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
        e.preventDefault();
        this.#submit();
      }
    });
    el.input.addEventListener('input', () => this.#autosize());
    el.stop.addEventListener('click', () => this.#stop());
    // A suggestion in a reply (markdown.js, byomcp:say) is sent as the visitor's message.
    el.log.addEventListener('click', (e) => {
      const b = /** @type {Element} */ (e.target).closest('button.suggestion');
      if (b?.textContent) void this.send(b.textContent);
    });
    el.newMessages.addEventListener('click', () => {
      this.#scroller.toEnd(true);
      el.newMessages.hidden = true;
      el.input.focus();
    });
    // The phone's bottom sheet goes back to full size when the visitor turns to the panel.
    el.input.addEventListener('focus', () => this.#setSheet(false));
    el.panel.addEventListener('pointerdown', () => this.#setSheet(false));
  }

  #submit() {
    const input = /** @type {HTMLTextAreaElement} */ (this.#el.input);
    const text = input.value.trim();
    // A message over the agent's limit stays in the box (the conversation says why).
    if (!text || this.#conv?.active || this.#conv?.tooLong(text)) return;
    input.value = '';
    this.#autosize();
    void this.send(text);
  }

  #autosize() {
    const input = this.#el.input;
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight + 2, 140)}px`;
  }

  #stop() {
    const view = this.#conv?.active;
    if (!view || view.done || view.stopping) return;
    // A disabled button loses focus to <body>: keep the visitor in the composer.
    if (this.#root.activeElement === this.#el.stop) this.#el.input.focus();
    /** @type {HTMLButtonElement} */ (this.#el.stop).disabled = true;
    this.#conv?.stop();
  }

  /** @param {boolean} busy a turn is running: Stop instead of Send */
  #setBusy(busy) {
    this.#el.send.hidden = busy;
    this.#el.stop.hidden = !busy;
    /** @type {HTMLButtonElement} */ (this.#el.stop).disabled = false;
    this.#el.stop.setAttribute('aria-label', this.#s.stopLabel);
    this.setAttribute('aria-busy', String(busy));
    if (!busy && this.#root.activeElement === this.#el.stop) this.#el.input.focus();
  }

  #applyStrings() {
    const s = this.#s;
    const el = this.#el;
    // The panel reads in its strings' direction: the built-in English ones left to right, also
    // on a right-to-left page (whose direction it would inherit: "Ask something…" came out as
    // "…Ask something"); a site that translated them gets its page's direction. The messages,
    // the greeting and the composer each take the direction of their own words (dir=auto).
    if (Object.keys(DEFAULT_STRINGS).every((k) => s[k] === DEFAULT_STRINGS[k])) this.dir = 'ltr';
    else this.removeAttribute('dir');
    el.title.textContent = s.title;
    el.launcher.setAttribute('aria-label', this.isOpen ? s.launcherClose : s.launcherOpen);
    el.panel.setAttribute('aria-label', s.panelLabel);
    el.close.setAttribute('aria-label', s.close);
    el.transcript.setAttribute('aria-label', s.transcriptLabel);
    el.greeting.textContent = s.greeting;
    el.input.setAttribute('aria-label', s.inputLabel);
    el.input.setAttribute('placeholder', s.inputPlaceholder);
    el.send.setAttribute('aria-label', s.send);
    el.stop.setAttribute('aria-label', s.stopLabel);
    el.footer.textContent = s.poweredBy;
    el.newMessages.textContent = s.newMessages;
    this.#onState({ state: this.#state });
  }

  /** @param {string[]} suggestions */
  #renderSuggestions(suggestions) {
    const box = this.#el.suggestions;
    box.replaceChildren();
    for (const text of Array.isArray(suggestions) ? suggestions : []) {
      if (typeof text !== 'string' || !text.trim()) continue;
      const b = make(this.#doc(), 'button', 'suggestion', text);
      b.dir = 'auto';
      b.setAttribute('type', 'button');
      b.setAttribute('part', 'suggestion');
      b.addEventListener('click', () => {
        void this.send(text);
        this.#el.input.focus();
      });
      box.append(b);
    }
  }

  /** @param {boolean} open */
  #remember(open) {
    try {
      this.#storage?.setItem(OPEN_KEY, open ? '1' : '0');
    } catch {
      // Storage may be full or forbidden; the panel just will not reopen by itself.
    }
  }

  // ---- connection state -----------------------------------------------------------------

  /** @param {{state: string}} detail */
  #onState({ state }) {
    this.#state = state ?? 'idle';
    showConnection({ el: this.#el, strings: this.#s, state: this.#state, active: this.#conv?.active ?? null, confirming: this.#pendingConfirms > 0 });
  }

  // ---- small helpers --------------------------------------------------------------------

  #doc() {
    return this.ownerDocument ?? document;
  }

  /** @param {string} text */
  #announce(text) {
    const live = this.#el.live;
    live.textContent = '';
    setTimeout(() => {
      live.textContent = text;
    }, 60);
  }

  /**
   * On a phone, shrinks the full-screen panel to a bottom sheet (so the visitor sees the page
   * change) or back: on at a page tool's call, off at the end of its turn or when the visitor
   * turns to the panel. Only while open, and never while a confirmation waits.
   *
   * Then, whenever the panel opens, closes, changes size or the screen does: while it covers
   * the whole screen (open on a phone, not the sheet) it is a modal dialog: aria-modal="true",
   * the page's other top-level elements (the widget is the last child of <html>) inert, so that
   * neither Tab (see #wire: it goes round the panel) nor assistive technology reaches the page
   * hidden under it. Only the elements that were not inert already are made inert, and only
   * those are given back. Docked, floating or as the sheet, the page stays visible and usable.
   * @param {boolean} on
   */
  #setSheet(on) {
    const phone = !!this.#phone?.matches;
    const modal = phone && this.isOpen && !this.toggleAttribute('sheet', on && phone && this.isOpen && this.#pendingConfirms === 0);
    this.#el.panel.setAttribute('aria-modal', String(modal));
    if (modal === !this.#inert) {
      const els = this.#inert ?? [...this.#doc().documentElement.children].filter((n) => n !== this && !(/** @type {any} */ (n).inert));
      for (const n of els) /** @type {any} */ (n).inert = modal;
      this.#inert = modal ? els : null;
    }
  }

  /**
   * Whether a tool call may change what the page shows: a page tool not marked read-only.
   * @param {unknown} name
   */
  #changesPage(name) {
    const info = this.#toolInfo(String(name ?? ''));
    return !!info && info.annotations?.readOnlyHint !== true;
  }

  /**
   * What the page registered for a tool, or null.
   * @param {string} name
   */
  #toolInfo(name) {
    try {
      return this.#toolInfoFn(name) ?? null;
    } catch {
      return null;
    }
  }
}

/**
 * Defines the custom element (once) and returns its class.
 * @param {string} [tag]
 * @param {(html: string) => any} [html] turns the panel's static markup into what the page lets
 *   innerHTML take: widget.js's Trusted Types policy where the page has them
 * @returns {CustomElementConstructor}
 */
export function defineChatElement(tag = 'byomcp-chat', html) {
  if (html) markup = html;
  const existing = customElements.get(tag);
  if (existing) return existing;
  customElements.define(tag, ChatElement);
  return ChatElement;
}

/** sessionStorage when the page may use it (sandboxed frames throw on access). */
function safeSessionStorage() {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null;
  }
}

/**
 * Shows the connection: the header's status line, the banner (offline, reconnecting, or an
 * origin the agent refuses: said neutrally, the visitor cannot fix it; the client told the
 * developer console how), and the running turn's typing dots or "waiting for the connection"
 * note. (Its own module until it cost a request of the first page.)
 * @param {{el: Record<string, HTMLElement>, strings: Record<string, string>, state: string,
 *   active: import('./turn-view.js').TurnView|null, confirming: boolean}} options
 *   confirming: a confirmation card waits
 */
function showConnection({ el, strings: s, state, active: a, confirming }) {
  const refused = state === 'refused';
  const text = { idle: s.disconnected, connecting: s.connecting, open: s.subtitle || s.connected, reconnecting: s.reconnecting, closed: s.disconnected, refused: s.unavailable }[state] ?? state;
  const open = state === 'open';
  el.status.dataset.state = state;
  el.statusText.textContent = text;
  const banner = el.banner;
  banner.hidden = state !== 'reconnecting' && !refused;
  if (refused) {
    banner.dataset.kind = 'refused';
    el.bannerText.textContent = s.refusedOrigin;
  } else {
    banner.dataset.kind = 'offline';
    const busy = a && !a.done;
    const offline = globalThis.navigator?.onLine === false;
    // "You are offline" only when the browser says so; a message waiting while the browser
    // is online waits for the agent, which the visitor cannot fix.
    el.bannerText.textContent = busy && !a?.queued ? `${s.reconnecting} ${s.errorConnection}` : offline ? s.offline : a?.queued ? s.unreachable : s.reconnecting;
  }
  // A turn waiting for the connection shows that, not typing dots.
  if (a && !a.done) {
    if (!open && a.thinking) a.setThinking(false);
    else if (open && !a.thinking && !a.stream && !confirming) a.setThinking(true);
    a.el.querySelector('.queued')?.toggleAttribute('hidden', open);
  }
}
