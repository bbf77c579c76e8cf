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
      /** @type {HTMLInputElement|HTMLSelectElement} */
      let control;
      /** @type {() => unknown} */
      let read;
      if (kind === 'choice') {
        const choices = /** @type {{value: unknown, title: string}[]} */ (choicesOf(p));
        const sel = /** @type {HTMLSelectElement} */ (make('select'));
        if (!required.has(key)) sel.append(Object.assign(make('option', '', s.unset), { value: '' }));
        for (const [i, c] of choices.entries()) sel.append(Object.assign(make('option', '', c.title), { value: String(i) }));
        const at = choices.findIndex((c) => sameValue(c.value, edited[key]));
        sel.value = at >= 0 ? String(at) : '';
        read = () => (sel.value === '' ? undefined : choices[Number(sel.value)]?.value);
        control = sel;
      } else if (kind === 'boolean') {
        const box = /** @type {HTMLInputElement} */ (make('input'));
        box.type = 'checkbox';
        box.checked = edited[key] === true;
        read = () => box.checked;
        control = box;
      } else {
        const input = /** @type {HTMLInputElement} */ (make('input'));
        const v = edited[key];
        if (kind === 'number' || kind === 'integer') {
          input.type = 'number';
          input.step = kind === 'integer' ? '1' : 'any';
          input.inputMode = kind === 'integer' ? 'numeric' : 'decimal';
          input.value = typeof v === 'number' ? String(v) : '';
          read = () => (input.value.trim() === '' ? (input.validity.badInput ? NaN : undefined) : Number(input.value));
        } else {
          input.type = p.format === 'date' ? 'date' : p.format === 'email' ? 'email' : 'text';
          input.value = typeof v === 'string' ? v : '';
          read = () => (input.value === '' && v !== '' ? undefined : input.value);
        }
        control = input;
      }
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
