// @ts-check
/**
 * @file The confirmation card of `<byomcp-chat>`: what a visitor reads before a tool that needs
 * their consent runs (a page tool, a declarative form, a server tool asked through
 * agent/confirm: the same card). chat-element.js imports this module only when the first
 * confirmation comes, so a page that never asks does not load it (nor its style).
 *
 * The card says what will happen: the tool's title, its one-line summary when the tool gives one
 * (`_meta["byomcp/summary"]`, a template over the argument names, or a page tool's function),
 * and the arguments as labelled values: labels from the schema's `title` (or the property name
 * made readable) with its `description` as a hint, values as the visitor reads them (a `oneOf`
 * / `anyOf` choice's `title`, a car's name rather than its id). The visitor may edit the
 * arguments the schema describes simply (strings, numbers, booleans, choices), validated again
 * (required, type, minimum/maximum, length, pattern, choices) with the error under the field and
 * Confirm disabled while one is wrong; and may decline with a reason the model reads.
 *
 * Keyboard: the card takes focus and keeps it (Tab cycles inside the card); Enter confirms when
 * the arguments are valid (in the reason field, it declines with that reason), Escape declines.
 * The card says so (confirmHint) only where a keyboard is likely: on a screen whose pointer is
 * coarse or cannot hover (a touch phone) the hint is hidden.
 *
 * The same module holds a page tool's `client.requestUserInput` (WebMCP's user-input draft): its
 * checks and the form or link it shows with the card's editors and style (see "A page tool asks
 * the visitor" below), so that it too loads only when first needed.
 */

// This module imports nothing: esbuild's splitting would put a module it shared with the panel
// (strings.js, labels.js) in a chunk of its own, one request more on every first page. What it
// needs of them comes in its arguments (the tool's label, humanize in words).

/** @typedef {import('./labels.js').ToolInfo} ToolInfo */

/**
 * The words values are written with: humanize makes a property name readable (labels.js's;
 * the name as it is when absent).
 * @typedef {{yes?: string, no?: string, unset?: string, humanize?: (id: string) => string}} Words
 */

/** The `_meta` key of a tool's one-line summary of a call (protocol.js's Meta.Summary). */
export const META_SUMMARY = 'byomcp/summary';

/**
 * strings.js's format: {name} in template becomes vars.name.
 * @param {string} template
 * @param {Record<string, unknown>} vars
 */
function format(template, vars) {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (m, k) => (Object.prototype.hasOwnProperty.call(vars, k) ? String(vars[k]) : m));
}

/** The longest summary and decline reason shown or sent, in characters. */
export const MAX_SUMMARY = 300;
export const MAX_REASON = 500;

/**
 * The card's own words (overridable like every string: data-strings, byomcpConfig.strings,
 * sites.json). They live here, not in strings.js, so that the first page does not carry them.
 */
export const CARD_STRINGS = Object.freeze({
  confirmEdit: 'Edit',
  confirmEditLabel: 'Edit the details',
  confirmReasonToggle: 'Decline with a reason',
  confirmReason: 'Why not? (the assistant reads it)',
  confirmedChanged: 'You allowed {name} with your changes.',
  declinedReason: 'You declined {name}: {reason}',
  invalidRequired: 'Required.',
  invalidNumber: 'Enter a number.',
  invalidInteger: 'Enter a whole number.',
  invalidMin: 'At least {min}.',
  invalidMax: 'At most {max}.',
  invalidMinLength: 'At least {min} characters.',
  invalidMaxLength: 'At most {max} characters.',
  invalidPattern: 'Not in the expected form.',
  invalidChoice: 'Choose one of the options.',
  invalidType: 'Not a valid value.',
  unset: '—',
});

/** The card's style, adopted into the panel's shadow root when this module loads. */
export const CARD_STYLE = `
.confirm {
  margin: 0 0 10px; padding: 12px 14px; border-radius: 14px; border: 1.5px solid var(--_accent);
  background: var(--_bg); box-shadow: 0 6px 18px -8px rgb(15 23 42 / .25); max-width: 100%; box-sizing: border-box;
}
.confirm:focus-visible { outline-offset: 2px; }
.confirm-title { margin: 0 0 2px; font-size: 13px; color: var(--_label); }
.confirm-action { margin: 0 0 4px; font-weight: 650; font-size: 15.5px; }
.confirm-summary { margin: 0 0 8px; font-size: 14.5px; }
.confirm-args { margin: 0 0 10px; display: grid; grid-template-columns: minmax(6em, auto) minmax(0, 1fr); gap: 5px 12px; font-size: 14px; }
.confirm-args dt { color: var(--_label); }
.confirm-args dt small { display: block; font-size: 12px; }
.confirm-args dd { margin: 0; overflow-wrap: anywhere; white-space: pre-wrap; font-weight: 600; min-width: 0; }
.confirm-args input:not([type="checkbox"]), .confirm-args select, .confirm-why input {
  box-sizing: border-box; width: 100%; min-height: 44px; padding: 6px 8px; font: inherit; font-weight: 400;
  border: 1px solid var(--_border); border-radius: 8px; background: var(--_bg); color: var(--_fg);
}
.confirm-args input[type="checkbox"] { width: 24px; height: 24px; margin: 10px 0; }
.confirm-args [aria-invalid="true"] { border-color: var(--_danger); }
.confirm-error { margin: 2px 0 0; font-size: 12.5px; font-weight: 400; color: var(--_danger); white-space: normal; }
.confirm-why { margin: 0 0 10px; font-size: 14px; }
.confirm-why summary { min-height: 44px; display: flex; align-items: center; gap: 6px; cursor: pointer; color: var(--_label); list-style: none; }
.confirm-why summary::-webkit-details-marker { display: none; }
.confirm-why summary::before { content: "▸"; }
.confirm-why[open] summary::before { content: "▾"; }
.confirm-why label { display: block; margin: 0 0 4px; color: var(--_label); font-size: 13px; }
.confirm-actions { display: flex; justify-content: flex-end; flex-wrap: wrap; gap: 8px; }
.confirm-actions .confirm-edit { margin-right: auto; }
.confirm-hint { margin: 8px 0 0; font-size: 12px; color: var(--_label); text-align: right; }
.btn { min-height: 44px; min-width: 44px; border-radius: 10px; padding: 7px 18px; font-weight: 600; font-size: 14px; }
.btn-secondary, .confirm-edit { border: 1px solid var(--_border); background: var(--_bg); color: var(--_fg); }
.btn-primary { border: 1px solid var(--_accent); background: var(--_accent); color: var(--_accent-fg); }
.btn:disabled { opacity: .5; cursor: not-allowed; }
@media (hover: none), (pointer: coarse) { .confirm-hint { display: none; } }
/* The "new messages" pill (chat-style.js) floats over the transcript's bottom edge: while a card
   waits for the visitor it would sit on a tall card's lower fields and buttons. Then it leaves
   the transcript and sits under it (in the flow, taking its own room), and while the focus is in
   the card it is not shown at all (what is below is the rest of the card); it floats again once
   the card is answered. */
.transcript-wrap:has(.confirm) .new-messages { position: static; transform: none; flex: none; align-self: center; margin: 6px 0; }
.transcript-wrap:has(.confirm:focus-within) .new-messages { display: none; }
/* requestUserInput's form and link (below) */
.input-form .confirm-args { grid-template-columns: minmax(0, 1fr); gap: 4px; }
.input-form .confirm-args dd { margin: 0 0 8px; font-weight: 400; }
.input-choices { display: grid; gap: 2px; }
.input-choices label { display: flex; align-items: center; gap: 8px; min-height: 44px; font-weight: 400; }
.input-choices input { width: 24px; height: 24px; margin: 0; }
.input-link { margin: 0 0 6px; overflow-wrap: anywhere; font-size: 14.5px; }
.input-link a { color: var(--_accent); font-weight: 600; }
.input-link-hint { margin: 0 0 10px; font-size: 13px; color: var(--_label); }
@media (forced-colors: active) { .btn-primary { border: 1px solid CanvasText; } }
`;

/**
 * One argument as the card shows it.
 * @typedef {object} ArgRow
 * @property {string} key the property name
 * @property {string} label
 * @property {string} hint the schema's description ('' when none, or when it only repeats the label)
 * @property {string} value
 */

/** @param {unknown} v @returns {v is Record<string, any>} */
function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The properties of an object schema ({} when it has none).
 * @param {any} schema
 * @returns {Record<string, any>}
 */
function propertiesOf(schema) {
  return isObject(schema) && isObject(schema.properties) ? schema.properties : {};
}

/**
 * The choices a property offers with the words a visitor reads: `oneOf`/`anyOf` of
 * `{const, title}` (JSON Schema's titled enum, MCP elicitation's too), `enum` with `enumNames`
 * (or `x-enumNames`), or a plain `enum` (its values as they are). null when it offers none.
 * @param {any} p a property's schema
 * @returns {{value: unknown, title: string}[]|null}
 */
export function choicesOf(p) {
  if (!isObject(p)) return null;
  for (const k of ['oneOf', 'anyOf']) {
    const list = p[k];
    if (!Array.isArray(list) || list.length === 0) continue;
    /** @type {{value: unknown, title: string}[]} */
    const out = [];
    for (const c of list) {
      if (!isObject(c)) return null;
      const has = 'const' in c || (Array.isArray(c.enum) && c.enum.length === 1);
      if (!has) return null;
      const value = 'const' in c ? c.const : c.enum[0];
      out.push({ value, title: typeof c.title === 'string' && c.title.trim() ? c.title.trim() : String(value) });
    }
    return out;
  }
  if (Array.isArray(p.enum) && p.enum.length > 0) {
    const names = Array.isArray(p.enumNames) ? p.enumNames : Array.isArray(p['x-enumNames']) ? p['x-enumNames'] : [];
    return p.enum.map((/** @type {unknown} */ value, /** @type {number} */ i) => ({
      value,
      title: typeof names[i] === 'string' && names[i].trim() ? names[i].trim() : String(value),
    }));
  }
  return null;
}

/**
 * A value as a visitor reads it, with its property's schema: a choice's title for its value
 * (each item's for a list), else formatValue.
 * @param {unknown} v
 * @param {any} p the property's schema (may be undefined)
 * @param {Words} words
 * @returns {string}
 */
export function displayValue(v, p, words) {
  const choices = choicesOf(p);
  if (choices && v !== undefined) {
    const c = choices.find((x) => sameValue(x.value, v));
    if (c) return c.title;
  }
  if (Array.isArray(v) && isObject(p) && isObject(p.items)) return v.map((x) => displayValue(x, p.items, words)).join(', ');
  return formatValue(v, words);
}

/** @param {unknown} a @param {unknown} b */
function sameValue(a, b) {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Labels and formats a call's arguments with the tool's input schema.
 * @param {unknown} args an object (or its JSON text)
 * @param {any} [schema] the tool's inputSchema
 * @param {Words} [words]
 * @returns {ArgRow[]|null} null when args is not an object (shown as text then)
 */
export function describeArgs(args, schema, words = {}) {
  const readable = words.humanize ?? String;
  const obj = parseArgs(args);
  if (!obj) return null;
  const props = propertiesOf(schema);
  const order = Object.keys(props);
  const keys = Object.keys(obj).sort((a, b) => rank(order, a) - rank(order, b));
  return keys.map((key) => {
    const p = isObject(props[key]) ? props[key] : {};
    const label = typeof p.title === 'string' && p.title.trim() ? p.title.trim() : readable(key);
    const desc = typeof p.description === 'string' ? p.description.trim() : '';
    const hint = desc && desc.toLowerCase() !== label.toLowerCase() ? desc : '';
    return { key, label, hint, value: displayValue(obj[key], p, words) };
  });
}

/**
 * @param {unknown} args an object or its JSON text
 * @returns {Record<string, any>|null}
 */
function parseArgs(args) {
  let obj = args;
  if (typeof obj === 'string') {
    try {
      obj = JSON.parse(obj);
    } catch {
      return null;
    }
  }
  return isObject(obj) ? obj : null;
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
 * @param {Words} words
 * @returns {string}
 */
export function formatValue(v, words) {
  const humanize = words.humanize ?? String;
  if (v === null || v === undefined) return '—';
  if (typeof v === 'boolean') return v ? (words.yes ?? 'Yes') : (words.no ?? 'No');
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) >= 10000 ? v.toLocaleString('en-US') : String(v);
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map((x) => (x && typeof x === 'object' ? JSON.stringify(x) : formatValue(x, words))).join(', ');
  return Object.entries(/** @type {object} */ (v))
    .map(([k, x]) => `${humanize(k)}: ${x && typeof x === 'object' ? JSON.stringify(x) : formatValue(x, words)}`)
    .join('\n');
}

/**
 * Fills a summary template: each `{name}` becomes that argument as the visitor reads it
 * (displayValue); an argument the call does not have becomes "—"; `{{` and `}}` are literal
 * braces. The result is one line of at most MAX_SUMMARY characters.
 * @param {string} template e.g. "Book a test drive of {car} on {date}"
 * @param {unknown} args
 * @param {any} [schema]
 * @param {Words} [words]
 * @returns {string}
 */
export function fillSummary(template, args, schema, words = {}) {
  const unset = words.unset ?? '—';
  const obj = parseArgs(args) ?? {};
  const props = propertiesOf(schema);
  const text = String(template).replace(/\{\{|\}\}|\{([A-Za-z0-9_.$-]+)\}/g, (m, key) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    const v = Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
    return v === undefined || v === null || v === '' ? unset : displayValue(v, props[key], words).replace(/\s+/g, ' ');
  });
  return oneLine(text, MAX_SUMMARY);
}

/** @param {string} text @param {number} max */
function oneLine(text, max) {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * The call's one-line summary, or '' when the tool gives none (or its function fails): a page
 * tool's summary function, else the template in `_meta["byomcp/summary"]`.
 * @param {ToolInfo|null|undefined} info
 * @param {unknown} args
 * @param {any} schema the schema the values are read with
 * @param {Words} [words]
 * @returns {string}
 */
export function summaryOf(info, args, schema, words) {
  if (typeof info?.summary === 'function') {
    try {
      const s = info.summary(parseArgs(args) ?? {});
      return typeof s === 'string' ? oneLine(s, MAX_SUMMARY) : '';
    } catch {
      return '';
    }
  }
  const t = isObject(info?._meta) ? info._meta[META_SUMMARY] : undefined;
  return typeof t === 'string' && t.trim() ? fillSummary(t, args, schema, words) : '';
}

/**
 * The kind of control that edits a property, or null when the card does not edit it (objects,
 * lists, a schema with several types).
 * @param {any} p
 * @returns {'choice'|'boolean'|'number'|'integer'|'string'|null}
 */
export function editorKind(p) {
  if (!isObject(p)) return null;
  if (choicesOf(p)) return 'choice';
  if (p.type === 'boolean' || p.type === 'number' || p.type === 'integer' || p.type === 'string') return p.type;
  return null;
}

/**
 * The control that edits one value (the card's editors; requestUserInput's form uses them too): a
 * select for a choice (with an empty first option when not required), a checkbox for a boolean,
 * a number input, or a text input (date, date and time, email or URL by the schema's format).
 * read gives the value the control holds (undefined when empty, NaN for a number the browser
 * cannot read).
 * @param {Document} doc
 * @param {NonNullable<ReturnType<typeof editorKind>>} kind
 * @param {any} p the property's schema
 * @param {unknown} v the value it starts with
 * @param {boolean} required
 * @param {string} unset the empty choice's text
 * @returns {{control: HTMLInputElement|HTMLSelectElement, read: () => unknown}}
 */
export function makeEditor(doc, kind, p, v, required, unset) {
  const make = (/** @type {string} */ tag, text = '') => Object.assign(doc.createElement(tag), text ? { textContent: text } : {});
  if (kind === 'choice') {
    const choices = /** @type {{value: unknown, title: string}[]} */ (choicesOf(p));
    const sel = /** @type {HTMLSelectElement} */ (make('select'));
    if (!required) sel.append(Object.assign(make('option', unset), { value: '' }));
    for (const [i, c] of choices.entries()) sel.append(Object.assign(make('option', c.title), { value: String(i) }));
    const at = choices.findIndex((c) => sameValue(c.value, v));
    sel.value = at >= 0 ? String(at) : '';
    return { control: sel, read: () => (sel.value === '' ? undefined : choices[Number(sel.value)]?.value) };
  }
  const input = /** @type {HTMLInputElement} */ (make('input'));
  if (kind === 'boolean') {
    input.type = 'checkbox';
    input.checked = v === true;
    return { control: input, read: () => input.checked };
  }
  if (kind === 'number' || kind === 'integer') {
    input.type = 'number';
    input.step = kind === 'integer' ? '1' : 'any';
    input.inputMode = kind === 'integer' ? 'numeric' : 'decimal';
    input.value = typeof v === 'number' ? String(v) : '';
    return { control: input, read: () => (input.value.trim() === '' ? (input.validity.badInput ? NaN : undefined) : Number(input.value)) };
  }
  if (p.format === 'date-time') {
    // The browser's date and time picker works in local time; the value read is RFC 3339 (UTC).
    input.type = 'datetime-local';
    const d = typeof v === 'string' ? new Date(v) : null;
    if (d && !Number.isNaN(d.getTime())) input.value = new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
    return { control: input, read: () => (input.value === '' ? undefined : new Date(input.value).toISOString()) };
  }
  input.type = { date: 'date', email: 'email', uri: 'url' }[/** @type {string} */ (p.format)] ?? 'text';
  input.value = typeof v === 'string' ? v : '';
  return { control: input, read: () => (input.value === '' && v !== '' ? undefined : input.value) };
}

/**
 * Why value does not fit property p (required: the property must have a value), or '' when it
 * fits: the checks the agent made on the model's arguments that a visitor's edit can break.
 * @param {unknown} value undefined when not given
 * @param {any} p
 * @param {boolean} required
 * @param {Record<string, string>} [s] the strings (CARD_STRINGS' keys)
 * @returns {string}
 */
export function checkValue(value, p, required, s = CARD_STRINGS) {
  if (value === undefined || value === '') return required ? s.invalidRequired : '';
  if (!isObject(p)) return '';
  const choices = choicesOf(p);
  if (choices && !choices.some((c) => sameValue(c.value, value))) return s.invalidChoice;
  const t = p.type;
  if ((t === 'number' || t === 'integer') && (typeof value !== 'number' || !Number.isFinite(value))) return s.invalidNumber;
  if (t === 'integer' && !Number.isInteger(value)) return s.invalidInteger;
  if (t === 'boolean' && typeof value !== 'boolean') return s.invalidType;
  if (t === 'string' && typeof value !== 'string') return s.invalidType;
  if (typeof value === 'number') {
    if (typeof p.minimum === 'number' && value < p.minimum) return format(s.invalidMin, { min: p.minimum });
    if (typeof p.exclusiveMinimum === 'number' && value <= p.exclusiveMinimum) return format(s.invalidMin, { min: p.exclusiveMinimum });
    if (typeof p.maximum === 'number' && value > p.maximum) return format(s.invalidMax, { max: p.maximum });
    if (typeof p.exclusiveMaximum === 'number' && value >= p.exclusiveMaximum) return format(s.invalidMax, { max: p.exclusiveMaximum });
  }
  if (typeof value === 'string') {
    const n = [...value].length;
    if (typeof p.minLength === 'number' && n < p.minLength) return format(s.invalidMinLength, { min: p.minLength });
    if (typeof p.maxLength === 'number' && n > p.maxLength) return format(s.invalidMaxLength, { max: p.maxLength });
    if (typeof p.pattern === 'string') {
      try {
        if (!new RegExp(p.pattern, 'u').test(value)) return s.invalidPattern;
      } catch {
        // A pattern JavaScript cannot read was checked by the agent; not here.
      }
    }
  }
  return '';
}

/**
 * Checks arguments against an object schema's properties and required list.
 * @param {Record<string, unknown>} args
 * @param {any} schema
 * @param {Record<string, string>} [s]
 * @returns {Record<string, string>} property → what is wrong (empty when all is well)
 */
export function validateArgs(args, schema, s = CARD_STRINGS) {
  const props = propertiesOf(schema);
  const required = new Set(isObject(schema) && Array.isArray(schema.required) ? schema.required : []);
  /** @type {Record<string, string>} */
  const out = {};
  for (const key of new Set([...Object.keys(props), ...required])) {
    const why = checkValue(args[key], props[key], required.has(key), s);
    if (why) out[key] = why;
  }
  return out;
}

/**
 * The arguments the visitor changed, in order: [key, before, after] (undefined: not given).
 * @param {Record<string, unknown>} before
 * @param {Record<string, unknown>} after
 * @returns {[string, unknown, unknown][]}
 */
export function changedArgs(before, after) {
  /** @type {[string, unknown, unknown][]} */
  const out = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!sameValue(before[key], after[key])) out.push([key, before[key], after[key]]);
  }
  return out;
}

/**
 * What the visitor answered.
 * @typedef {object} Answer
 * @property {boolean} approved
 * @property {Record<string, unknown>} [arguments] the edited arguments, when the visitor changed some
 * @property {string} [reason] why the visitor declined, when they said
 */

/**
 * Builds a confirmation card (not yet in the document). Its buttons and keys call onAnswer.
 * @param {{doc: Document, strings: Record<string, string>, name: string, label: string, args: unknown, info?: ToolInfo|null,
 *   humanize?: (id: string) => string, onAnswer: (answer: Answer) => void}} options
 *   label: the tool as the visitor reads it (labels.js's toolLabel)
 * @returns {HTMLElement}
 */
export function buildConfirmCard({ doc, strings, name, label, args, info, humanize, onAnswer }) {
  const s = { ...CARD_STRINGS, ...strings };
  /** @type {Words} */
  const words = { yes: s.yes, no: s.no, unset: s.unset, humanize };
  const make = (/** @type {string} */ tag, cls = '', /** @type {string|undefined} */ text = undefined) => {
    const el = doc.createElement(tag);
    if (cls) el.className = cls;
    if (text !== undefined) el.textContent = text;
    return el;
  };
  /** @type {any} */
  let schema = info?.inputSchema;
  try {
    if (typeof info?.cardSchema === 'function') schema = info.cardSchema() ?? schema;
  } catch {
    // The schema the agent has is shown then.
  }
  const card = make('div', 'confirm');
  card.setAttribute('part', 'confirm');
  card.setAttribute('role', 'group');
  card.tabIndex = -1;
  card.dataset.name = name;
  const id = `confirm-${Math.random().toString(36).slice(2)}`;
  const title = make('p', 'confirm-title', s.confirmTitle);
  title.id = `${id}-t`;
  const action = make('p', 'confirm-action', label);
  action.id = `${id}-a`;
  card.append(title, action);
  card.setAttribute('aria-labelledby', `${id}-t ${id}-a`);

  const original = parseArgs(args);
  /** @type {Record<string, unknown>} */
  const edited = { ...(original ?? {}) };
  const summary = make('p', 'confirm-summary');
  summary.id = `${id}-s`;
  summary.setAttribute('part', 'confirm-summary');
  const showSummary = () => {
    summary.textContent = summaryOf(info, edited, schema, words);
    summary.hidden = summary.textContent === '';
  };
  showSummary();
  card.append(summary);
  if (!summary.hidden) card.setAttribute('aria-describedby', summary.id);

  const rows = describeArgs(original ?? args, schema, words);
  /** @type {Map<string, {dd: HTMLElement, kind: NonNullable<ReturnType<typeof editorKind>>}>} */
  const editable = new Map();
  const props = propertiesOf(schema);
  if (rows === null) {
    const pre = make('pre', 'tool-pre', typeof args === 'string' ? args : JSON.stringify(args, null, 2) ?? '');
    pre.tabIndex = 0;
    card.append(pre);
  } else if (rows.length > 0) {
    const dl = make('dl', 'confirm-args');
    for (const [i, r] of rows.entries()) {
      const dt = make('dt', '', r.label);
      dt.id = `${id}-l${i}`;
      if (r.hint) dt.append(make('small', '', r.hint));
      const dd = make('dd', '', r.value);
      dd.dataset.key = r.key;
      dl.append(dt, dd);
      const kind = editorKind(props[r.key]);
      if (kind) editable.set(r.key, { dd, kind });
    }
    card.append(dl);
  }

  const why = /** @type {HTMLDetailsElement} */ (make('details', 'confirm-why'));
  why.append(make('summary', '', s.confirmReasonToggle));
  const reasonLabel = make('label', '', s.confirmReason);
  reasonLabel.setAttribute('for', `${id}-r`);
  const reason = /** @type {HTMLInputElement} */ (make('input'));
  reason.id = `${id}-r`;
  reason.type = 'text';
  reason.maxLength = MAX_REASON;
  reason.setAttribute('part', 'confirm-reason');
  why.append(reasonLabel, reason);
  card.append(why);

  const actions = make('div', 'confirm-actions');
  const edit = make('button', 'btn confirm-edit', s.confirmEdit);
  edit.setAttribute('part', 'confirm-edit');
  edit.setAttribute('type', 'button');
  edit.setAttribute('aria-label', s.confirmEditLabel);
  edit.hidden = editable.size === 0;
  const cancel = make('button', 'btn btn-secondary', s.cancel);
  cancel.setAttribute('part', 'confirm-cancel');
  cancel.setAttribute('type', 'button');
  const ok = /** @type {HTMLButtonElement} */ (make('button', 'btn btn-primary', s.confirm));
  ok.setAttribute('part', 'confirm-ok');
  ok.setAttribute('type', 'button');
  actions.append(edit, cancel, ok);
  card.append(actions, make('p', 'confirm-hint', s.confirmHint));

  const required = new Set(isObject(schema) && Array.isArray(schema.required) ? schema.required : []);
  /** @type {Map<string, {control: HTMLInputElement|HTMLSelectElement, error: HTMLElement, read: () => unknown}>} */
  const controls = new Map();
  /** Checks the edited values, shows each field's error, and says whether all are valid. */
  const check = () => {
    let valid = true;
    for (const [key, c] of controls) {
      const wrong = checkValue(edited[key], props[key], required.has(key), s);
      c.error.textContent = wrong;
      c.error.hidden = wrong === '';
      if (wrong) c.control.setAttribute('aria-invalid', 'true');
      else c.control.removeAttribute('aria-invalid');
      valid &&= wrong === '';
    }
    ok.disabled = !valid;
    return valid;
  };
  const startEditing = () => {
    if (controls.size > 0) return;
    for (const [key, { dd, kind }] of editable) {
      const p = props[key];
      const lid = dd.previousElementSibling?.id ?? '';
      const error = make('p', 'confirm-error');
      error.id = `${id}-e-${controls.size}`;
      error.hidden = true;
      const { control, read } = makeEditor(doc, kind, p, edited[key], required.has(key), s.unset);
      control.setAttribute('aria-labelledby', lid);
      control.setAttribute('aria-describedby', error.id);
      control.dataset.key = key;
      const onChange = () => {
        edited[key] = read();
        if (edited[key] === undefined) delete edited[key];
        check();
        showSummary();
      };
      control.addEventListener('input', onChange);
      control.addEventListener('change', onChange);
      dd.replaceChildren(control, error);
      controls.set(key, { control, error, read });
    }
    edit.hidden = true;
    check();
    controls.values().next().value?.control.focus();
  };
  edit.addEventListener('click', startEditing);

  let answered = false;
  const confirm = () => {
    if (answered) return;
    if (controls.size > 0 && !check()) {
      [...controls.values()].find((c) => c.control.getAttribute('aria-invalid') === 'true')?.control.focus();
      return;
    }
    answered = true;
    /** @type {Answer} */
    const answer = { approved: true };
    if (original && changedArgs(original, edited).length > 0) answer.arguments = { ...edited };
    onAnswer(answer);
  };
  const decline = () => {
    if (answered) return;
    answered = true;
    /** @type {Answer} */
    const answer = { approved: false };
    const r = oneLine(reason.value, MAX_REASON);
    if (r) answer.reason = r;
    onAnswer(answer);
  };
  ok.addEventListener('click', confirm);
  cancel.addEventListener('click', decline);
  card.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => {
    const target = /** @type {HTMLElement|null} */ (e.target);
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation(); // the panel's Escape would close it
      decline();
    } else if (e.key === 'Enter' && !e.isComposing && target?.tagName !== 'BUTTON' && target?.tagName !== 'SUMMARY') {
      // On a button (or the reason's toggle) Enter is that button's click.
      e.preventDefault();
      if (target === reason) decline();
      else confirm();
    } else if (e.key === 'Tab') {
      // Focus stays in the card while it waits for an answer.
      const all = [...card.querySelectorAll('button, input, select, summary, pre[tabindex="0"]')].filter(
        (el) => !(/** @type {any} */ (el).disabled) && /** @type {HTMLElement} */ (el).getClientRects().length > 0,
      );
      if (all.length === 0) return;
      const first = /** @type {HTMLElement} */ (all[0]);
      const last = /** @type {HTMLElement} */ (all[all.length - 1]);
      const root = /** @type {Document|ShadowRoot} */ (card.getRootNode());
      const at = root.activeElement;
      if (e.shiftKey && (at === first || at === card)) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && at === last) {
        e.preventDefault();
        first.focus();
      }
    }
  });
  return card;
}

/**
 * What the live region says when a card appears.
 * @param {Record<string, string>} s
 * @param {string} label
 * @param {string} [summary]
 */
export function confirmAnnouncement(s, label, summary = '') {
  return `${s.confirmTitle} ${format(s.confirmBody, { name: label })}${summary ? ` ${summary}` : ''}`;
}

/**
 * Asks the visitor: builds the card, lets place() put it in the transcript, focuses it and
 * announces it, and resolves with the answer (Confirm, possibly with edited arguments; Cancel
 * or Escape, possibly with a reason; not approved when signal aborts); settled() then replaces
 * the card with the note that says what happened.
 * @param {{doc: Document, strings: Record<string, string>, name: string, label: string, args: unknown, info?: ToolInfo|null,
 *   humanize?: (id: string) => string, signal?: AbortSignal, place: (card: HTMLElement) => void,
 *   announce: (text: string) => void, settled: (card: HTMLElement, note: string) => void}} options
 * @returns {Promise<Answer>}
 */
export function askConfirmation({ doc, strings, name, label, args, info, humanize, signal, place, announce, settled }) {
  const s = { ...CARD_STRINGS, ...strings };
  return new Promise((resolve) => {
    let done = false;
    const finish = (/** @type {Answer} */ answer, /** @type {string} */ noteText) => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      settled(card, format(noteText, { name: label, reason: answer.reason ?? '' }));
      resolve(answer);
    };
    const onAbort = () => finish({ approved: false }, s.confirmDismissed);
    const card = buildConfirmCard({
      doc,
      strings: s,
      name,
      label,
      args,
      info,
      humanize,
      onAnswer: (a) => finish(a, a.approved ? (a.arguments ? s.confirmedChanged : s.confirmed) : a.reason ? s.declinedReason : s.declined),
    });
    place(card);
    signal?.addEventListener('abort', onAbort, { once: true });
    card.focus({ preventScroll: true });
    const summary = /** @type {HTMLElement|null} */ (card.querySelector('.confirm-summary'));
    announce(confirmAnnouncement(s, label, summary?.hidden ? '' : summary?.textContent ?? ''));
  });
}

// ---- A page tool asks the visitor ----------------------------------------------------------
//
// `client.requestUserInput(request)`, the second argument of a tool's execute, shaped after
// WebMCP's user-input draft (webmachinelearning/webmcp PR 204, issue 165; not merged), which
// mirrors MCP elicitation:
// - `{mode: 'form', message, requestedSchema}`: a form in the chat panel built from the schema
//   (MCP elicitation's: a flat object of strings, numbers, integers, booleans, single and
//   multiple choices) with the card's editors and checks, answered `{action: 'accept', content}`
//   (checked against the schema), or `{action: 'decline'}` / `{action: 'cancel'}`;
// - `{mode: 'url', message, url}`: the message and an http(s) link the visitor opens with their
//   own click (never opened by the widget), answered `{action: 'accept'}` (Done) or decline;
// - `{mode: 'interactive', callback}`: as requestUserInteraction(callback).
// A bad request rejects with a TypeError and shows nothing. It lives in this module so that it
// loads lazily with the card (tools.js and chat-element.js import it at the first request).

/** Progress message while the visitor is asked (requestUserInteraction's too). */
export const INPUT_PROGRESS_MESSAGE = 'waiting for the user';

/** The longest message, in characters, and the most fields a form may have. */
export const MAX_MESSAGE = 2000;
export const MAX_FIELDS = 50;

/** The string formats a form field may have (MCP elicitation's). */
export const FORMATS = Object.freeze(['email', 'uri', 'date', 'date-time']);

/** The form's own words (overridable like every string of the widget). */
export const INPUT_STRINGS = Object.freeze({
  inputTitle: 'The assistant needs some details',
  inputUrlTitle: 'The assistant asks you to open a page',
  inputSend: 'Send',
  inputDecline: 'Decline',
  inputCancel: 'Cancel',
  inputDone: 'Done',
  inputHint: 'Enter sends, Escape cancels',
  inputUrlHint: 'Opens in a new tab. Choose Done when you have finished there.',
  inputSent: 'You sent the details {name} asked for.',
  inputDeclined: 'You declined what {name} asked.',
  inputCancelled: 'You cancelled what {name} asked.',
  inputDoneNote: 'You finished what {name} asked on the other page.',
  inputDismissed: 'The request of {name} was withdrawn.',
  invalidEmail: 'Enter an email address.',
  invalidUri: 'Enter a web address (https://…).',
  invalidDate: 'Enter a date (YYYY-MM-DD).',
  invalidDateTime: 'Enter a date and time.',
  invalidMinItems: 'Choose at least {min}.',
  invalidMaxItems: 'Choose at most {max}.',
  invalidUnknown: 'Not asked for.',
});

/**
 * A request as checked: form (the schema copied), url (the URL's href) or interactive.
 * @typedef {{mode: 'form', message: string, requestedSchema: any}
 *   | {mode: 'url', message: string, url: string}
 *   | {mode: 'interactive', callback: () => unknown}} InputRequest
 */

/**
 * What the visitor answered.
 * @typedef {{action: 'accept'|'decline'|'cancel', content?: Record<string, unknown>}} InputAnswer
 */

const fail = (/** @type {string} */ why) => new TypeError(`requestUserInput: ${why}`);

/**
 * Checks a request and returns it as used (the schema copied, the URL normalized), or throws a
 * TypeError that says what is wrong.
 * @param {unknown} request
 * @returns {InputRequest}
 */
export function checkRequest(request) {
  if (!isObject(request)) throw fail('the request must be an object');
  const mode = request.mode;
  if (mode === 'interactive') {
    if (typeof request.callback !== 'function') throw fail('an interactive request needs a callback function');
    return { mode, callback: request.callback };
  }
  if (mode !== 'form' && mode !== 'url') throw fail(`unknown mode ${JSON.stringify(mode) ?? String(mode)}: expected "form", "url" or "interactive"`);
  const message = request.message;
  if (typeof message !== 'string' || message.trim() === '') throw fail('message must be a non-empty string');
  if (message.length > MAX_MESSAGE) throw fail(`message is longer than ${MAX_MESSAGE} characters`);
  if (mode === 'url') return { mode, message, url: checkURL(request.url) };
  return { mode, message, requestedSchema: checkSchema(request.requestedSchema) };
}

/**
 * An http(s) URL's href; anything else (javascript:, data:, relative, credentials in it) throws.
 * @param {unknown} u
 */
export function checkURL(u) {
  if (typeof u !== 'string' && !(u instanceof URL)) throw fail('url must be a string');
  /** @type {URL} */
  let url;
  try {
    url = new URL(String(u));
  } catch {
    throw fail(`url ${JSON.stringify(String(u))} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail(`url must be http or https, not ${url.protocol}`);
  if (url.username || url.password) throw fail('url must not carry a user name or password');
  return url.href;
}

/**
 * The kind of field a property is, or null when a form cannot have it: a single choice, a
 * boolean, a number, an integer, a string, or a multiple choice (an array of enum strings, or of
 * items.anyOf / items.oneOf `{const, title}`).
 * @param {any} p
 * @returns {'choice'|'boolean'|'number'|'integer'|'string'|'choices'|null}
 */
export function fieldKind(p) {
  if (!isObject(p)) return null;
  if (p.type === 'array') {
    const choices = choicesOf(p.items);
    return isObject(p.items) && choices && choices.every((c) => typeof c.value === 'string') ? 'choices' : null;
  }
  if (!['string', 'number', 'integer', 'boolean'].includes(p.type)) return null;
  return editorKind(p);
}

/**
 * Why a property cannot be a form field ('' when it can).
 * @param {any} p
 */
function propertyProblem(p) {
  if (!isObject(p)) return 'must be an object';
  const kind = fieldKind(p);
  if (!kind) return 'must be a string, number, integer or boolean, a single choice (enum, oneOf) or a multiple choice (an array of enum or anyOf items), not a nested object or list';
  if (p.format !== undefined && (p.type !== 'string' || !FORMATS.includes(p.format))) return `format ${JSON.stringify(p.format)} is not one of ${FORMATS.join(', ')} on a string`;
  for (const k of ['minLength', 'maxLength', 'minItems', 'maxItems']) {
    if (p[k] !== undefined && !(Number.isInteger(p[k]) && p[k] >= 0)) return `${k} must be a whole number, 0 or more`;
  }
  for (const k of ['minimum', 'maximum']) {
    if (p[k] !== undefined && !(typeof p[k] === 'number' && Number.isFinite(p[k]))) return `${k} must be a number`;
  }
  for (const k of ['title', 'description']) {
    if (p[k] !== undefined && typeof p[k] !== 'string') return `${k} must be a string`;
  }
  if (kind === 'choice') {
    const bad = /** @type {{value: unknown}[]} */ (choicesOf(p)).find((c) => checkValue(c.value, { type: p.type }, false) !== '');
    if (bad) return `the choice ${JSON.stringify(bad.value)} is not a ${p.type}`;
  }
  if (p.default !== undefined && checkField(p.default, p, false) !== '') return `its default ${JSON.stringify(p.default)} does not fit it`;
  return '';
}

/**
 * Checks a form's schema (a flat object of the kinds fieldKind knows) and returns a copy, or
 * throws a TypeError naming the property that is wrong.
 * @param {unknown} schema
 */
export function checkSchema(schema) {
  if (!isObject(schema) || schema.type !== 'object' || !isObject(schema.properties)) {
    throw fail('requestedSchema must be {type: "object", properties: {…}}');
  }
  const keys = Object.keys(schema.properties);
  if (keys.length === 0) throw fail('requestedSchema has no properties');
  if (keys.length > MAX_FIELDS) throw fail(`requestedSchema has ${keys.length} properties, more than ${MAX_FIELDS}`);
  for (const key of keys) {
    const why = propertyProblem(schema.properties[key]);
    if (why) throw fail(`requestedSchema.properties.${key}: ${why}`);
  }
  const required = schema.required;
  if (required !== undefined && !(Array.isArray(required) && required.every((k) => typeof k === 'string' && keys.includes(k)))) {
    throw fail('requestedSchema.required must list names of its properties');
  }
  return JSON.parse(JSON.stringify(schema));
}

/**
 * Why value does not fit a form field ('' when it does): confirm-card.js's checks (required,
 * type, bounds, length, pattern, choice), the formats, and a multiple choice's items and counts.
 * @param {unknown} value undefined when not given
 * @param {any} p
 * @param {boolean} required
 * @param {Record<string, string>} [s]
 */
export function checkField(value, p, required, s = { ...CARD_STRINGS, ...INPUT_STRINGS }) {
  if (fieldKind(p) === 'choices') {
    if (value === undefined) return required ? s.invalidRequired : '';
    const choices = /** @type {{value: unknown}[]} */ (choicesOf(p.items));
    if (!Array.isArray(value) || !value.every((v) => choices.some((c) => c.value === v)) || new Set(value).size !== value.length) return s.invalidChoice;
    if (typeof p.minItems === 'number' && value.length < p.minItems) return format(s.invalidMinItems, { min: p.minItems });
    if (typeof p.maxItems === 'number' && value.length > p.maxItems) return format(s.invalidMaxItems, { max: p.maxItems });
    return '';
  }
  const why = checkValue(value, p, required, s);
  if (why || typeof value !== 'string' || value === '') return why;
  if (p.format === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return s.invalidEmail;
  if (p.format === 'uri' && !/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value)) return s.invalidUri;
  if (p.format === 'date' && !isDate(value)) return s.invalidDate;
  if (p.format === 'date-time' && !isDateTime(value)) return s.invalidDateTime;
  return '';
}

/** @param {string} v a full-date of RFC 3339 that exists (no 31 February) */
function isDate(v) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

/** @param {string} v an RFC 3339 date-time (with its offset) */
function isDateTime(v) {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.exec(v);
  return !!m && isDate(m[1]) && +m[2] < 24 && +m[3] < 60 && +m[4] < 61;
}

/**
 * Checks content against a form's schema: each property's value, the required ones, and no
 * value the schema does not ask for.
 * @param {Record<string, unknown>} content
 * @param {any} schema a schema checkSchema accepted
 * @param {Record<string, string>} [s]
 * @returns {Record<string, string>} property → what is wrong (empty when all is well)
 */
export function validateContent(content, schema, s = { ...CARD_STRINGS, ...INPUT_STRINGS }) {
  const props = schema.properties;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  /** @type {Record<string, string>} */
  const out = {};
  for (const key of Object.keys(content)) if (!Object.prototype.hasOwnProperty.call(props, key)) out[key] = s.invalidUnknown;
  for (const key of Object.keys(props)) {
    const why = checkField(content[key], props[key], required.has(key), s);
    if (why) out[key] = why;
  }
  return out;
}

/**
 * The answer a tool receives, checked: an action of accept, decline or cancel; an accepted form
 * carries content that fits the schema (copied). A wrong answer (a page's own handler) throws.
 * @param {unknown} answer
 * @param {InputRequest} request
 * @returns {InputAnswer}
 */
export function checkAnswer(answer, request) {
  const action = isObject(answer) ? answer.action : undefined;
  if (action === 'decline' || action === 'cancel') return { action };
  if (action !== 'accept') throw fail(`the answer's action ${JSON.stringify(action) ?? 'undefined'} is not accept, decline or cancel`);
  if (request.mode !== 'form') return { action };
  const content = isObject(/** @type {any} */ (answer).content) ? /** @type {any} */ (answer).content : {};
  const wrong = Object.entries(validateContent(content, request.requestedSchema, { ...CARD_STRINGS, ...INPUT_STRINGS }));
  if (wrong.length > 0) throw fail(`the answer's content.${wrong[0][0]}: ${wrong[0][1]}`);
  return { action, content: JSON.parse(JSON.stringify(content)) };
}

/**
 * @callback InputHandler
 * @param {InputRequest & {name: string, tool: any, signal: AbortSignal}} request
 * @returns {unknown} the answer, or a promise of it
 */

/**
 * agent/elicit for tools.js (here, not there, so the first page does not carry it): a
 * server-side MCP server's question to the visitor (MCP elicitation: {server, message, mode?,
 * requestedSchema?, url?}) asked with requestUserInput's form, or link. A request the form
 * cannot show throws invalid(why) (tools.js's InvalidParams).
 * @param {any} params
 * @param {InputHandler} handler
 * @param {AbortSignal} signal
 * @param {any} keepAlive progressKeeper's
 * @param {(why: string) => Error} invalid
 * @returns {Promise<unknown>}
 */
export function elicit(params, handler, signal, keepAlive, invalid) {
  const name = params?.server;
  let request;
  try {
    if (typeof name !== 'string' || name === '') throw new TypeError('server must be a non-empty string');
    const mode = params.mode ?? 'form';
    if (mode !== 'form' && mode !== 'url') throw new TypeError('mode must be "form" or "url"');
    request =
      mode === 'url'
        ? { mode, message: params.message, url: params.url }
        : { mode, message: params.message, requestedSchema: params.requestedSchema ?? { type: 'object', properties: {} } };
    checkRequest(request);
  } catch (err) {
    throw invalid(/** @type {Error} */ (err).message);
  }
  return requestUserInput(request, { handler, name, tool: { name, title: name }, signal, keepAlive });
}

/**
 * requestUserInput as a tool's client has it (tools.js): checks the request, then runs an
 * interactive callback, or asks handler (the widget's form) while keepAlive sends progress.
 * handler rejects with the abort reason when signal aborts (tools.js makes it so; the form
 * closes with the same signal).
 * @param {unknown} request
 * @param {{handler: InputHandler|null, name: string, tool: any, signal: AbortSignal,
 *   keepAlive: {<T>(message: string, fn: () => Promise<T>): Promise<T>, say: (message: string) => void}}} options
 * @returns {Promise<unknown>}
 */
export async function requestUserInput(request, { handler, name, tool, signal, keepAlive }) {
  const req = checkRequest(request);
  if (req.mode === 'interactive') return keepAlive(INPUT_PROGRESS_MESSAGE, async () => req.callback());
  if (signal.aborted) throw signal.reason;
  if (!handler) throw new DOMException('requestUserInput: no user input UI is available on this page', 'NotSupportedError');
  keepAlive.say(INPUT_PROGRESS_MESSAGE);
  const answer = await keepAlive(INPUT_PROGRESS_MESSAGE, () => handler({ ...req, name, tool, signal }));
  return checkAnswer(answer, req);
}

/**
 * Builds the form (not yet in the document): a form request's fields, or a url request's link,
 * with their buttons and keys calling onAnswer once.
 * @param {{doc: Document, strings: Record<string, string>, label: string,
 *   request: {mode: 'form', message: string, requestedSchema: any}|{mode: 'url', message: string, url: string},
 *   onAnswer: (answer: InputAnswer) => void}} options label: the tool as the visitor reads it
 * @returns {HTMLElement}
 */
export function buildInputForm({ doc, strings, label, request, onAnswer }) {
  const s = { ...CARD_STRINGS, ...INPUT_STRINGS, ...strings };
  const make = (/** @type {string} */ tag, cls = '', /** @type {string|undefined} */ text = undefined) => {
    const el = doc.createElement(tag);
    if (cls) el.className = cls;
    if (text !== undefined) el.textContent = text;
    return el;
  };
  const id = `input-${Math.random().toString(36).slice(2)}`;
  const box = make('div', 'confirm input-form');
  box.setAttribute('part', 'input-form');
  box.setAttribute('role', 'group');
  box.tabIndex = -1;
  box.dataset.mode = request.mode;
  const title = make('p', 'confirm-title', request.mode === 'url' ? s.inputUrlTitle : s.inputTitle);
  title.id = `${id}-t`;
  const action = make('p', 'confirm-action', label);
  action.id = `${id}-a`;
  const message = make('p', 'confirm-summary', request.message);
  message.id = `${id}-m`;
  box.append(title, action, message);
  box.setAttribute('aria-labelledby', `${id}-t ${id}-a`);
  box.setAttribute('aria-describedby', message.id);

  const actions = make('div', 'confirm-actions');
  const button = (/** @type {string} */ text, /** @type {string} */ cls, /** @type {string} */ part) => {
    const b = /** @type {HTMLButtonElement} */ (make('button', `btn ${cls}`, text));
    b.type = 'button';
    b.setAttribute('part', part);
    return b;
  };
  let answered = false;
  const answer = (/** @type {InputAnswer} */ a) => {
    if (answered) return;
    answered = true;
    onAnswer(a);
  };
  /** @type {() => boolean} */
  let check = () => true;
  /** @type {Record<string, unknown>} */
  const content = {};
  /** @type {HTMLButtonElement} */
  let ok;
  /** @type {HTMLElement[]} */
  const controls = [];

  if (request.mode === 'url') {
    const p = make('p', 'input-link');
    const a = /** @type {HTMLAnchorElement} */ (make('a', '', request.url));
    a.href = request.url;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    a.setAttribute('part', 'input-link');
    p.append(a);
    const hint = make('p', 'input-link-hint', s.inputUrlHint);
    hint.id = `${id}-h`;
    a.setAttribute('aria-describedby', hint.id);
    box.append(p, hint);
    ok = button(s.inputDone, 'btn-primary', 'input-done');
    actions.append(button(s.inputDecline, 'btn-secondary input-decline', 'input-decline'), ok);
  } else {
    const schema = request.requestedSchema;
    const props = schema.properties;
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const dl = make('dl', 'confirm-args');
    /** @type {Map<string, {control: HTMLElement, error: HTMLElement}>} */
    const fields = new Map();
    /** Fields the visitor has changed: only their errors show (Send is disabled by any). */
    const touched = new Set();
    for (const [i, [key, p]] of Object.entries(props).entries()) {
      const kind = /** @type {NonNullable<ReturnType<typeof fieldKind>>} */ (fieldKind(p));
      const text = typeof p.title === 'string' && p.title.trim() ? p.title.trim() : key;
      // A field's label is a <label> (a multiple choice's names its group); its hint describes it.
      const dt = make('dt');
      const name = make(kind === 'choices' ? 'span' : 'label', '', text);
      name.id = `${id}-l${i}`;
      if (kind !== 'choices') name.setAttribute('for', `${id}-f${i}`);
      dt.append(name);
      const desc = typeof p.description === 'string' ? p.description.trim() : '';
      const hint = make('small', '', desc);
      hint.id = `${id}-h${i}`;
      if (desc && desc.toLowerCase() !== text.toLowerCase()) dt.append(hint);
      const dd = make('dd');
      const error = make('p', 'confirm-error');
      error.id = `${id}-e${i}`;
      error.hidden = true;
      const start = kind === 'boolean' ? (p.default ?? false) : p.default;
      if (start !== undefined) content[key] = start;
      /** @type {HTMLElement} */
      let control;
      /** @type {() => unknown} */
      let read;
      if (kind === 'choices') {
        // A multiple choice: one checkbox per option, in a group named by the field's label.
        const group = make('div', 'input-choices');
        group.setAttribute('role', 'group');
        const choices = /** @type {{value: unknown, title: string}[]} */ (choicesOf(p.items));
        const boxes = choices.map((c, j) => {
          const lab = make('label');
          const cb = /** @type {HTMLInputElement} */ (make('input'));
          cb.type = 'checkbox';
          cb.id = `${id}-c${i}-${j}`;
          cb.checked = Array.isArray(start) && start.includes(c.value);
          lab.append(cb, make('span', '', c.title));
          group.append(lab);
          return cb;
        });
        read = () => {
          const v = choices.filter((_, j) => boxes[j].checked).map((c) => c.value);
          return v.length === 0 && !Array.isArray(start) ? undefined : v;
        };
        control = group;
      } else {
        // A required choice with no default starts on the empty option (the visitor picks one).
        ({ control, read } = makeEditor(doc, kind, p, start, required.has(key) && start !== undefined, s.unset));
        if (required.has(key)) control.setAttribute('aria-required', 'true');
      }
      if (kind === 'choices') control.setAttribute('aria-labelledby', name.id);
      control.id = `${id}-f${i}`;
      control.setAttribute('aria-describedby', dt.contains(hint) ? `${hint.id} ${error.id}` : error.id);
      control.dataset.key = key;
      const onChange = () => {
        touched.add(key);
        const v = read();
        if (v === undefined) delete content[key];
        else content[key] = v;
        check();
      };
      control.addEventListener('input', onChange);
      control.addEventListener('change', onChange);
      dd.append(control, error);
      dl.append(dt, dd);
      fields.set(key, { control, error });
      controls.push(control);
    }
    box.append(dl);
    ok = button(s.inputSend, 'btn-primary', 'input-send');
    actions.append(button(s.inputDecline, 'btn-secondary input-decline', 'input-decline'), button(s.inputCancel, 'btn-secondary input-cancel', 'input-cancel'), ok);
    check = () => {
      let valid = true;
      for (const [key, f] of fields) {
        const wrong = checkField(content[key], props[key], required.has(key), s);
        const shown = touched.has(key) ? wrong : '';
        f.error.textContent = shown;
        f.error.hidden = shown === '';
        if (shown) f.control.setAttribute('aria-invalid', 'true');
        else f.control.removeAttribute('aria-invalid');
        valid &&= wrong === '';
      }
      ok.disabled = !valid;
      return valid;
    };
    check();
  }
  box.append(actions, make('p', 'confirm-hint', s.inputHint));

  const send = () => {
    if (request.mode === 'url') return answer({ action: 'accept' });
    if (!check()) return;
    answer({ action: 'accept', content: { ...content } });
  };
  ok.addEventListener('click', send);
  box.querySelector('.input-decline')?.addEventListener('click', () => answer({ action: 'decline' }));
  box.querySelector('.input-cancel')?.addEventListener('click', () => answer({ action: 'cancel' }));
  box.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => {
    const target = /** @type {HTMLElement|null} */ (e.target);
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation(); // the panel's Escape would close it
      answer({ action: 'cancel' });
    } else if (e.key === 'Enter' && !e.isComposing && target?.tagName !== 'BUTTON' && target?.tagName !== 'A') {
      // On a button Enter is that button's click, on the link it opens the link.
      e.preventDefault();
      send();
    } else if (e.key === 'Tab') {
      // Focus stays in the form while it waits for an answer.
      const all = [...box.querySelectorAll('button, input, select, a[href]')].filter(
        (el) => !(/** @type {any} */ (el).disabled) && /** @type {HTMLElement} */ (el).getClientRects().length > 0,
      );
      if (all.length === 0) return;
      const first = /** @type {HTMLElement} */ (all[0]);
      const last = /** @type {HTMLElement} */ (all[all.length - 1]);
      const at = /** @type {Document|ShadowRoot} */ (box.getRootNode()).activeElement;
      if (e.shiftKey && (at === first || at === box)) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && at === last) {
        e.preventDefault();
        first.focus();
      }
    }
  });
  /** The element that takes the focus when the form appears: its first field, else the form. */
  Object.defineProperty(box, 'firstField', { value: controls[0]?.matches('div') ? controls[0].querySelector('input') : controls[0] });
  return box;
}

/** Forms waiting for the one shown, per widget (one form at a time). */
const queues = new WeakMap();

/**
 * Asks the visitor in a widget, one form at a time (a second request waits for the first): builds
 * the form, lets place() put it in the transcript, focuses it and announces it, and resolves with
 * the answer; settled() then replaces it with the note that says what happened. An aborted signal
 * withdraws it (resolving cancel; the call itself rejects with the abort reason).
 * @param {{owner: object, doc: Document, strings: Record<string, string>, label: string,
 *   request: {mode: 'form', message: string, requestedSchema: any}|{mode: 'url', message: string, url: string},
 *   signal?: AbortSignal, place: (el: HTMLElement) => void, announce: (text: string) => void,
 *   settled: (el: HTMLElement, note: string) => void}} options
 * @returns {Promise<InputAnswer>}
 */
export function askInput(options) {
  const before = queues.get(options.owner) ?? Promise.resolve();
  const next = before.then(() => (options.signal?.aborted ? { action: /** @type {const} */ ('cancel') } : showInput(options)));
  queues.set(options.owner, next.catch(() => undefined));
  return next;
}

/** @param {Parameters<typeof askInput>[0]} options @returns {Promise<InputAnswer>} */
function showInput({ doc, strings, label, request, signal, place, announce, settled }) {
  const s = { ...CARD_STRINGS, ...INPUT_STRINGS, ...strings };
  return new Promise((resolve) => {
    let done = false;
    const finish = (/** @type {InputAnswer} */ a, /** @type {string} */ note) => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      settled(box, format(note, { name: label }));
      resolve(a);
    };
    const onAbort = () => finish({ action: 'cancel' }, s.inputDismissed);
    const notes = { accept: request.mode === 'url' ? s.inputDoneNote : s.inputSent, decline: s.inputDeclined, cancel: s.inputCancelled };
    const box = buildInputForm({ doc, strings, label, request, onAnswer: (a) => finish(a, notes[a.action]) });
    place(box);
    signal?.addEventListener('abort', onAbort, { once: true });
    (/** @type {any} */ (box).firstField ?? box).focus({ preventScroll: true });
    announce(`${box.querySelector('.confirm-title')?.textContent} ${label}: ${request.message}`);
  });
}
