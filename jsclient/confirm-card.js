// @ts-check
/**
 * @file The confirmation card of `<byomcp-chat>`: what a visitor reads before a tool that needs
 * their consent runs. The tool is named by its `title` (or its name made readable) and its
 * arguments are shown as labelled values, labels taken from the schema's `title` (or the
 * property name made readable) with its `description` as a hint. Keyboard: the card takes focus;
 * Enter confirms, Escape cancels. The card says so (confirmHint) only where a keyboard is likely:
 * chat-style.js hides the hint on a screen whose pointer is coarse or cannot hover (a touch
 * phone, where no Enter or Escape key is at hand), so it is never a wrong hint.
 */

import { format } from './strings.js';

/**
 * Makes an identifier readable: `book_test_drive` → "Book test drive", `annualIncome` →
 * "Annual income", `get-quote.v2` → "Get quote v2".
 * @param {string} id
 * @returns {string}
 */
export function humanize(id) {
  const words = String(id ?? '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_.\-]+/)
    .filter(Boolean)
    .map((w, i) => (i > 0 && !/^[A-Z0-9]{2,}$/.test(w) ? w.toLowerCase() : w));
  if (words.length === 0) return '';
  const first = words[0];
  words[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return words.join(' ');
}

/**
 * @typedef {object} ToolInfo what the page registered for a tool (ToolHost.listTools())
 * @property {string} name
 * @property {string} [title]
 * @property {string} [description]
 * @property {any} [inputSchema]
 * @property {any} [annotations]
 */

/**
 * The name a visitor reads for a tool: its title, else annotations.title, else its name made
 * readable.
 * @param {string} name
 * @param {ToolInfo|null|undefined} info
 * @returns {string}
 */
export function toolLabel(name, info) {
  const t = typeof info?.title === 'string' && info.title.trim() ? info.title : info?.annotations?.title;
  return typeof t === 'string' && t.trim() ? t.trim() : humanize(name) || String(name ?? '');
}

/**
 * One argument as the card shows it.
 * @typedef {object} ArgRow
 * @property {string} key the property name
 * @property {string} label
 * @property {string} hint the schema's description ('' when none, or when it only repeats the label)
 * @property {string} value
 */

/**
 * Labels and formats a call's arguments with the tool's input schema.
 * @param {unknown} args an object (or its JSON text)
 * @param {any} [schema] the tool's inputSchema
 * @param {{yes?: string, no?: string}} [words]
 * @returns {ArgRow[]|null} null when args is not an object (shown as text then)
 */
export function describeArgs(args, schema, { yes = 'Yes', no = 'No' } = {}) {
  let obj = args;
  if (typeof obj === 'string') {
    try {
      obj = JSON.parse(obj);
    } catch {
      return null;
    }
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return null;
  const props = schema && typeof schema === 'object' && schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  const order = Object.keys(props);
  const keys = Object.keys(obj).sort((a, b) => rank(order, a) - rank(order, b));
  return keys.map((key) => {
    const p = props[key] && typeof props[key] === 'object' ? props[key] : {};
    const label = typeof p.title === 'string' && p.title.trim() ? p.title.trim() : humanize(key);
    const desc = typeof p.description === 'string' ? p.description.trim() : '';
    const hint = desc && desc.toLowerCase() !== label.toLowerCase() ? desc : '';
    return { key, label, hint, value: formatValue(/** @type {any} */ (obj)[key], { yes, no }) };
  });
}

/**
 * @param {string[]} order
 * @param {string} key
 */
function rank(order, key) {
  const i = order.indexOf(key);
  return i < 0 ? order.length : i;
}

/**
 * A value as a visitor reads it: text as is, booleans as Yes/No, lists joined, objects as
 * "key: value" lines.
 * @param {unknown} v
 * @param {{yes: string, no: string}} words
 * @returns {string}
 */
export function formatValue(v, words) {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'boolean') return v ? words.yes : words.no;
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) >= 10000 ? v.toLocaleString('en-US') : String(v);
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map((x) => (x && typeof x === 'object' ? JSON.stringify(x) : formatValue(x, words))).join(', ');
  return Object.entries(/** @type {object} */ (v))
    .map(([k, x]) => `${humanize(k)}: ${x && typeof x === 'object' ? JSON.stringify(x) : formatValue(x, words)}`)
    .join('\n');
}

/**
 * Builds a confirmation card (not yet in the document). Its buttons and keys call onAnswer.
 * @param {{doc: Document, strings: Record<string, string>, name: string, args: unknown, info?: ToolInfo|null,
 *   onAnswer: (approved: boolean) => void}} options
 * @returns {{card: HTMLElement, label: string}}
 */
export function buildConfirmCard({ doc, strings: s, name, args, info, onAnswer }) {
  const make = (/** @type {string} */ tag, cls = '', /** @type {string|undefined} */ text = undefined) => {
    const el = doc.createElement(tag);
    if (cls) el.className = cls;
    if (text !== undefined) el.textContent = text;
    return el;
  };
  const label = toolLabel(name, info);
  const card = make('div', 'confirm');
  card.setAttribute('part', 'confirm');
  card.setAttribute('role', 'group');
  card.tabIndex = -1;
  card.dataset.name = name;
  const id = `confirm-${Math.random().toString(36).slice(2)}`;
  card.setAttribute('aria-labelledby', `${id}-t ${id}-a`);
  const title = make('p', 'confirm-title', s.confirmTitle);
  title.id = `${id}-t`;
  const action = make('p', 'confirm-action', label);
  action.id = `${id}-a`;
  card.append(title, action);
  const rows = describeArgs(args, info?.inputSchema, { yes: s.yes, no: s.no });
  if (rows === null) {
    const pre = make('pre', 'tool-pre', typeof args === 'string' ? args : JSON.stringify(args, null, 2) ?? '');
    pre.tabIndex = 0;
    card.append(pre);
  } else if (rows.length > 0) {
    const dl = make('dl', 'confirm-args');
    for (const r of rows) {
      const dt = make('dt', '', r.label);
      if (r.hint) dt.append(make('small', '', r.hint));
      const dd = make('dd', '', r.value);
      dd.dataset.key = r.key;
      dl.append(dt, dd);
    }
    card.append(dl);
  }
  const actions = make('div', 'confirm-actions');
  const cancel = make('button', 'btn btn-secondary', s.cancel);
  cancel.setAttribute('part', 'confirm-cancel');
  cancel.setAttribute('type', 'button');
  const ok = make('button', 'btn btn-primary', s.confirm);
  ok.setAttribute('part', 'confirm-ok');
  ok.setAttribute('type', 'button');
  actions.append(cancel, ok);
  card.append(actions, make('p', 'confirm-hint', s.confirmHint));
  ok.addEventListener('click', () => onAnswer(true));
  cancel.addEventListener('click', () => onAnswer(false));
  card.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation(); // the panel's Escape would close it
      onAnswer(false);
    } else if (e.key === 'Enter' && !e.isComposing && /** @type {HTMLElement|null} */ (e.target)?.tagName !== 'BUTTON') {
      // On a button Enter is that button's click.
      e.preventDefault();
      onAnswer(true);
    }
  });
  return { card, label };
}

/**
 * What the live region says when a card appears.
 * @param {Record<string, string>} s
 * @param {string} label
 */
export function confirmAnnouncement(s, label) {
  return `${s.confirmTitle} ${format(s.confirmBody, { name: label })}`;
}

/**
 * Asks the visitor: builds the card, lets place() put it in the transcript, focuses it and
 * announces it, and resolves true on Confirm, false on Cancel or when signal aborts; settled()
 * then replaces the card with the note that says what happened.
 * @param {{doc: Document, strings: Record<string, string>, name: string, args: unknown, info?: ToolInfo|null,
 *   signal?: AbortSignal, place: (card: HTMLElement) => void, announce: (text: string) => void,
 *   settled: (card: HTMLElement, note: string) => void}} options
 * @returns {Promise<boolean>}
 */
export function askConfirmation({ doc, strings: s, name, args, info, signal, place, announce, settled }) {
  return new Promise((resolve) => {
    let done = false;
    const finish = (/** @type {boolean} */ approved, /** @type {string} */ noteText) => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      settled(card, format(noteText, { name: label }));
      resolve(approved);
    };
    const onAbort = () => finish(false, s.confirmDismissed);
    const { card, label } = buildConfirmCard({ doc, strings: s, name, args, info, onAnswer: (approved) => finish(approved, approved ? s.confirmed : s.declined) });
    place(card);
    signal?.addEventListener('abort', onAbort, { once: true });
    card.focus({ preventScroll: true });
    announce(confirmAnnouncement(s, label));
  });
}
