// Declarative WebMCP (the draft's declarative-api-explainer): every <form toolname tooldescription>
// in the document and its open shadow roots becomes a tool of our document.modelContext, with an
// input schema synthesized from its named controls; the registrations follow the DOM. Invoking
// the tool fills the controls; with toolautosubmit it validates and calls requestSubmit(), and
// the page answers through SubmitEvent.agentInvoked / respondWith(promise).

import { toLogger } from './wsrpc.js';
import { CARD_SCHEMA } from './tools.js';

/** Input types whose value is free text. */
const TEXT_TYPES = new Set(['text', 'search', 'tel', 'password', 'email', 'url']);

/** Input types that are not parameters (buttons, files). */
const SKIPPED_TYPES = new Set(['submit', 'reset', 'button', 'image', 'file']);

/** Patterns of the temporal input types (the value format of HTML). */
const TEMPORAL = {
  time: '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$',
  'datetime-local': '^[0-9]{4}-(0[1-9]|1[0-2])-[0-3][0-9]T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$',
  month: '^[0-9]{4}-(0[1-9]|1[0-2])$',
  week: '^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$',
  color: '^#[0-9a-fA-F]{6}$',
};

/** Marks the tools this module registers: their toolactivated and toolcancel are fired here. */
export const FORM_TOOL = Symbol('byomcp.formTool');

/** The draft's ToolActivatedEvent: a tool call has started; toolName names the tool. */
export class ToolActivatedEvent extends Event {
  #toolName;
  /** @param {string} type @param {EventInit & {toolName?: string}} [init] */
  constructor(type, init = {}) {
    super(type, init);
    this.#toolName = String(init?.toolName ?? '');
  }

  get toolName() {
    return this.#toolName;
  }
}

/** The draft's ToolCancelEvent: a tool call was cancelled before it answered. */
export class ToolCancelEvent extends Event {
  #toolName;
  /** @param {string} type @param {EventInit & {toolName?: string}} [init] */
  constructor(type, init = {}) {
    super(type, init);
    this.#toolName = String(init?.toolName ?? '');
  }

  get toolName() {
    return this.#toolName;
  }
}

/**
 * Fires 'toolactivated' or 'toolcancel' {toolName} at each target (a model context, a window),
 * a new event each, not bubbling, as Chromium does.
 * @param {any[]} targets
 * @param {'toolactivated'|'toolcancel'} type
 * @param {string} toolName
 */
export function fireToolEvent(targets, type, toolName) {
  const C = type === 'toolcancel' ? ToolCancelEvent : ToolActivatedEvent;
  for (const t of targets) if (typeof t?.dispatchEvent === 'function') t.dispatchEvent(new C(type, { toolName }));
}

/** Submit events dispatched by an agent invocation. */
const agentEvents = new WeakSet();
/** @type {WeakMap<Event, Promise<unknown>>} respondWith's promise per event */
const responses = new WeakMap();
/** @type {WeakMap<HTMLFormElement, {dispatching: boolean}>} forms being submitted by the agent */
const submitting = new WeakMap();

/**
 * Whether ev is a submit event of an agent invocation (records it when it is being dispatched).
 * @param {Event} ev
 */
function isAgentEvent(ev) {
  if (agentEvents.has(ev)) return true;
  const form = /** @type {any} */ (ev).target;
  if (form && submitting.get(form)?.dispatching) {
    agentEvents.add(ev);
    return true;
  }
  return false;
}

/**
 * Adds the draft's SubmitEvent.agentInvoked and respondWith() where the browser lacks them.
 * @param {any} win
 */
function installSubmitEvent(win) {
  const proto = win.SubmitEvent?.prototype;
  if (!proto) return;
  if (!('agentInvoked' in proto)) {
    Object.defineProperty(proto, 'agentInvoked', {
      configurable: true,
      enumerable: true,
      get() {
        return isAgentEvent(this);
      },
    });
  }
  if (!('respondWith' in proto)) {
    Object.defineProperty(proto, 'respondWith', {
      configurable: true,
      enumerable: true,
      writable: true,
      /** @param {unknown} response */
      value(response) {
        if (!isAgentEvent(this)) throw new DOMException('respondWith() is only available during an agent-invoked submit event', 'InvalidStateError');
        if (!this.defaultPrevented) throw new DOMException('respondWith() requires preventDefault() first', 'InvalidStateError');
        if (responses.has(this)) throw new DOMException('respondWith() was already called', 'InvalidStateError');
        responses.set(this, Promise.resolve(response));
      },
    });
  }
}

/**
 * The named, enabled controls of form grouped by name, in tree order.
 * @param {HTMLFormElement} form
 * @returns {Map<string, any[]>}
 */
function controlGroups(form) {
  /** @type {Map<string, any[]>} */
  const groups = new Map();
  for (const el of /** @type {any} */ (form.elements)) {
    const tag = el.localName;
    if (tag !== 'input' && tag !== 'select' && tag !== 'textarea') continue;
    const name = (el.name ?? '').trim();
    if (!name || el.disabled || el.matches(':disabled')) continue;
    if (tag === 'input' && SKIPPED_TYPES.has(el.type)) continue;
    if (tag === 'input' && el.type === 'hidden' && !el.hasAttribute('toolparamdescription')) continue;
    if (el.readOnly && tag !== 'select' && !['checkbox', 'radio'].includes(el.type)) continue;
    const list = groups.get(name);
    if (list) list.push(el);
    else groups.set(name, [el]);
  }
  return groups;
}

/**
 * A control's description: toolparamdescription, else its label's text, else aria-label.
 * @param {any} el
 */
function controlDescription(el) {
  return el.getAttribute('toolparamdescription') || labelText(el);
}

/**
 * A control's label as the visitor reads it (its labels' text without the controls inside or a
 * trailing required mark), else its aria-label.
 * @param {any} el
 * @returns {string|undefined}
 */
function labelText(el) {
  const labels = [...(el.labels ?? [])]
    .map((l) => {
      const copy = l.cloneNode(true);
      for (const c of copy.querySelectorAll('input, select, textarea, button')) c.remove();
      return copy.textContent.replace(/\s+/g, ' ').replace(/\s*\*\s*$/, '').trim();
    })
    .filter(Boolean);
  if (labels.length) return labels.join('; ');
  return el.getAttribute('aria-label') || undefined;
}

/**
 * The form's schema as the visitor reads it, for the confirmation card (never sent to the agent):
 * each parameter titled with its label (a group's fieldset legend), and the values of radio
 * buttons and checkboxes titled with their own labels, as a select's options already are.
 * @param {HTMLFormElement} form
 */
export function cardSchema(form) {
  const schema = synthesizeSchema(form);
  for (const [name, controls] of controlGroups(form)) {
    const p = /** @type {Record<string, any>|undefined} */ (schema.properties[name]);
    if (!p) continue;
    const fs = controls[0].closest('fieldset');
    const group = controls.length > 1 && fs && controls.every((c) => fs.contains(c)) ? fs.querySelector('legend')?.textContent?.replace(/\s+/g, ' ').trim() : undefined;
    const title = controls.length > 1 ? group : labelText(controls[0]);
    if (title) p.title = title;
    if (controls.length > 1 && (p.enum || p.items?.enum)) {
      const oneOf = controls.map((c) => ({ const: c.value, title: labelText(c) || c.value }));
      if (p.type === 'array') p.items = { type: 'string', oneOf };
      else {
        delete p.enum;
        p.oneOf = oneOf;
      }
    }
  }
  return schema;
}

/**
 * A group's description: the common fieldset's toolparamdescription or legend, else the first
 * control's.
 * @param {any[]} controls
 */
function groupDescription(controls) {
  const fs = controls[0].closest('fieldset');
  if (fs && controls.every((c) => fs.contains(c))) {
    const d = fs.getAttribute('toolparamdescription') || fs.querySelector('legend')?.textContent?.trim();
    if (d) return d;
  }
  return controls.length === 1 ? controlDescription(controls[0]) : undefined;
}

/** @param {any} el @param {string} attr */
function numberAttr(el, attr) {
  const raw = el.getAttribute(attr);
  if (raw === null || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/** @param {any} el @param {Record<string, unknown>} schema */
function lengths(el, schema) {
  const min = numberAttr(el, 'minlength');
  const max = numberAttr(el, 'maxlength');
  if (min !== undefined && min >= 0) schema.minLength = min;
  if (max !== undefined && max >= 0) schema.maxLength = max;
}

/**
 * The JSON Schema of one parameter (a group of same-named controls), or undefined when the
 * group is not one this synthesis knows.
 * @param {any[]} controls
 * @returns {Record<string, unknown>|undefined}
 */
function parameterSchema(controls) {
  const first = controls[0];
  /** @type {Record<string, unknown>|undefined} */
  let schema;
  if (controls.length > 1) {
    if (controls.every((c) => c.localName === 'input' && c.type === 'radio')) {
      schema = { type: 'string', enum: controls.map((c) => c.value) };
    } else if (controls.every((c) => c.localName === 'input' && c.type === 'checkbox')) {
      schema = { type: 'array', items: { type: 'string', enum: controls.map((c) => c.value) }, uniqueItems: true };
    } else {
      return undefined;
    }
  } else if (first.localName === 'select') {
    const opts = [...first.options].filter((o) => !o.disabled && !(first.required && o.value === ''));
    if (!opts.length) return undefined;
    // Options shown as other than their value (a car's name for its id) are labelled for the model.
    const one = opts.some((o) => o.text.trim() !== o.value) ? { oneOf: opts.map((o) => ({ const: o.value, title: o.text.trim() })) } : { enum: opts.map((o) => o.value) };
    schema = first.multiple ? { type: 'array', items: { type: 'string', ...one }, uniqueItems: true } : { type: 'string', ...one };
  } else if (first.localName === 'textarea') {
    schema = { type: 'string' };
    lengths(first, schema);
  } else if (first.type === 'checkbox') {
    schema = { type: 'boolean' };
  } else if (first.type === 'radio') {
    schema = { type: 'string', enum: [first.value] };
  } else if (first.type === 'number' || first.type === 'range') {
    const step = first.getAttribute('step');
    const min = numberAttr(first, 'min');
    const max = numberAttr(first, 'max');
    const integral = step !== 'any' && Number.isInteger(Number(step || 1)) && Number.isInteger(min ?? 0);
    schema = { type: integral ? 'integer' : 'number' };
    if (min !== undefined) schema.minimum = min;
    else if (first.type === 'range') schema.minimum = 0;
    if (max !== undefined) schema.maximum = max;
    else if (first.type === 'range') schema.maximum = 100;
  } else if (first.type === 'date') {
    schema = { type: 'string', format: 'date', pattern: '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$' };
    const bounds = [first.getAttribute('min') && `from ${first.getAttribute('min')}`, first.getAttribute('max') && `until ${first.getAttribute('max')}`].filter(Boolean);
    schema.description = `YYYY-MM-DD${bounds.length ? `, ${bounds.join(' ')}` : ''}`;
  } else if (first.type in TEMPORAL) {
    schema = { type: 'string', pattern: TEMPORAL[/** @type {keyof typeof TEMPORAL} */ (first.type)] };
  } else if (TEXT_TYPES.has(first.type) || first.type === 'hidden') {
    schema = { type: 'string' };
    if (first.type === 'email') schema.format = 'email';
    if (first.type === 'url') schema.format = 'uri';
    const pattern = first.getAttribute('pattern');
    if (pattern && validPattern(pattern)) schema.pattern = `^(?:${pattern})$`;
    lengths(first, schema);
  } else {
    return undefined;
  }
  const description = groupDescription(controls);
  if (description) schema.description = schema.description ? `${description} (${schema.description})` : description;
  return schema;
}

/** @param {string} pattern */
function validPattern(pattern) {
  try {
    new RegExp(pattern, 'v');
    return true;
  } catch {
    return false;
  }
}

/**
 * The input schema of a declarative form: one property per named control group; required when
 * a control of the group is required.
 * @param {HTMLFormElement} form
 * @returns {{type: 'object', properties: Record<string, unknown>, required: string[]}}
 */
export function synthesizeSchema(form) {
  /** @type {Record<string, unknown>} */
  const properties = {};
  /** @type {string[]} */
  const required = [];
  for (const [name, controls] of controlGroups(form)) {
    const schema = parameterSchema(controls);
    if (!schema) continue;
    properties[name] = schema;
    if (controls.some((c) => c.required)) required.push(name);
  }
  return { type: 'object', properties, required };
}

/**
 * The tool a form declares, or null when it declares none.
 * @param {HTMLFormElement} form
 */
export function formTool(form) {
  if (!form.hasAttribute('toolname')) return null;
  return {
    name: form.getAttribute('toolname') ?? '',
    title: form.getAttribute('tooltitle') || undefined,
    description: form.getAttribute('tooldescription') ?? '',
    inputSchema: synthesizeSchema(form),
    autosubmit: form.hasAttribute('toolautosubmit'),
  };
}

/** @param {unknown} v */
function asString(v) {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return undefined;
}

/** @param {any} el */
function fire(el) {
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

/**
 * Fills form with input after checking every value; throws a TypeError naming the first field
 * that does not exist or cannot take its value (nothing is filled then).
 * @param {HTMLFormElement} form
 * @param {any} input
 * @returns {string[]} the names filled
 */
export function fillForm(form, input) {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new TypeError('The input of a form tool must be an object');
  const groups = controlGroups(form);
  /** @type {Array<() => void>} */
  const writes = [];
  for (const [name, value] of Object.entries(input)) {
    const controls = groups.get(name);
    if (!controls || !parameterSchema(controls)) throw new TypeError(`The form has no field "${name}"`);
    const write = writer(controls, value);
    if (!write) throw new TypeError(`Invalid value for field "${name}": ${JSON.stringify(value)}`);
    writes.push(write);
  }
  for (const w of writes) w();
  return Object.keys(input);
}

/**
 * A function that sets controls to value, or null when value does not fit them.
 * @param {any[]} controls
 * @param {unknown} value
 * @returns {(() => void)|null}
 */
function writer(controls, value) {
  const first = controls[0];
  const checkboxes = controls.every((c) => c.localName === 'input' && c.type === 'checkbox');
  if (checkboxes && (controls.length > 1 || Array.isArray(value))) {
    if (!Array.isArray(value)) return null;
    const wanted = new Set(value.map(asString));
    if ([...wanted].some((v) => v === undefined || !controls.some((c) => c.value === v))) return null;
    return () => {
      for (const c of controls) {
        if (c.checked === wanted.has(c.value)) continue;
        c.checked = wanted.has(c.value);
        fire(c);
      }
    };
  }
  if (controls.every((c) => c.localName === 'input' && c.type === 'radio')) {
    const s = asString(value);
    const target = controls.find((c) => c.value === s);
    if (!target) return null;
    return () => {
      if (target.checked) return;
      target.checked = true;
      fire(target);
    };
  }
  if (first.localName === 'input' && first.type === 'checkbox') {
    const b = typeof value === 'boolean' ? value : value === 'true' ? true : value === 'false' ? false : undefined;
    if (b === undefined) return null;
    return () => {
      if (first.checked === b) return;
      first.checked = b;
      fire(first);
    };
  }
  if (first.localName === 'select') {
    const values = [...first.options].map((o) => o.value);
    if (first.multiple) {
      if (!Array.isArray(value)) return null;
      const wanted = new Set(value.map(asString));
      if ([...wanted].some((v) => v === undefined || !values.includes(v))) return null;
      return () => {
        let changed = false;
        for (const o of first.options) {
          if (o.selected === wanted.has(o.value)) continue;
          o.selected = !o.selected;
          changed = true;
        }
        if (changed) fire(first);
      };
    }
    const s = asString(value);
    if (s === undefined || !values.includes(s)) return null;
    return () => {
      if (first.value === s) return;
      first.value = s;
      fire(first);
    };
  }
  const s = asString(value);
  if (s === undefined) return null;
  if (first.localName === 'input' && s !== '' && !['text', 'search', 'tel', 'password', 'hidden'].includes(first.type)) {
    // Typed inputs sanitize a value they cannot hold to "": such a value does not fit.
    const probe = first.ownerDocument.createElement('input');
    probe.type = first.type;
    probe.value = s;
    if (probe.value === '') return null;
  }
  return () => {
    if (first.value === s) return;
    first.value = s;
    fire(first);
  };
}

/**
 * The controls that fail validation, as "name: message" lines.
 * @param {HTMLFormElement} form
 */
function invalidFields(form) {
  return [...(/** @type {any} */ (form.elements))]
    .filter((el) => el.willValidate && !el.validity.valid)
    .map((el) => `${el.name || el.id || el.localName}: ${el.validationMessage || 'invalid'}`);
}

/** @param {HTMLFormElement} form */
export function submitButton(form) {
  return [...(/** @type {any} */ (form.elements))].find(
    (el) => !el.disabled && ((el.localName === 'button' && el.type === 'submit') || (el.localName === 'input' && (el.type === 'submit' || el.type === 'image'))),
  );
}

/** @param {any} button */
function buttonLabel(button) {
  return (button?.localName === 'input' ? button.value : button?.textContent)?.replace(/\s+/g, ' ').trim() || 'Submit';
}

/**
 * The answer of a form tool without toolautosubmit once the form is filled: it waits for the
 * visitor, and the fields that still fail validation are named.
 * @param {HTMLFormElement} form
 * @param {string} name the tool's
 * @param {string[]} filled the fields filled
 */
export function leftToVisitor(form, name, filled) {
  const button = submitButton(form);
  const problems = invalidFields(form);
  const what = filled.length ? `Filled ${filled.join(', ')} in the form "${name}".` : `Filled nothing in the form "${name}".`;
  return {
    content: [
      {
        type: 'text',
        text: `${what} The form was not submitted: it waits for the visitor to check it and press "${buttonLabel(button)}" themselves. Ask them to do so.${problems.length ? ` Fields still to correct: ${problems.join('; ')}.` : ''}`,
      },
    ],
    structuredContent: { submitted: false, filled },
  };
}

/**
 * Watches the document (and its open shadow roots) for declarative form tools and keeps their
 * registrations with mc in step. Returns a function that stops watching and unregisters them.
 * @param {{registerTool(tool: any, options?: {signal?: AbortSignal}): Promise<unknown>, dispatchEvent(e: Event): boolean}} mc
 * @param {{win?: any, logger?: Partial<import('./wsrpc.js').Logger>}} [options]
 * @returns {() => void}
 */
export function startDeclarativeTools(mc, { win = globalThis, logger } = {}) {
  const log = toLogger(logger);
  const doc = win.document;
  installSubmitEvent(win);
  /** @type {Map<HTMLFormElement, {controller: AbortController, fingerprint: string, cancel: Set<(err: Error) => void>}>} */
  const registrations = new Map();
  /** @type {Map<Node, MutationObserver>} */
  const observers = new Map();
  /** @type {WeakMap<HTMLFormElement, string>} forms already warned about, with the reason */
  const warned = new WeakMap();
  let scheduled = false;
  let stopped = false;

  /** @param {HTMLFormElement} form @param {string} why */
  const warnOnce = (form, why) => {
    if (warned.get(form) === why) return;
    warned.set(form, why);
    log.warn(`declarative tool form ${JSON.stringify(form.getAttribute('toolname'))} ${why}`);
  };

  /** @param {MutationRecord[]} records */
  const relevant = (records) =>
    records.some((r) => {
      const t = /** @type {any} */ (r.target);
      const el = t.nodeType === 1 ? t : t.parentElement;
      if (el?.closest?.('form, label, fieldset')) return true;
      if (r.type !== 'childList') return false;
      return [...r.addedNodes, ...r.removedNodes].some((n) => n.nodeType === 1 && (/** @type {any} */ (n).localName === 'form' || /** @type {any} */ (n).querySelector?.('form') || /** @type {any} */ (n).shadowRoot || /** @type {any} */ (n).localName?.includes('-')));
    });

  const schedule = () => {
    if (scheduled || stopped) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      if (!stopped) sync();
    });
  };

  /** @param {Node} root */
  const observe = (root) => {
    if (observers.has(root)) return;
    const mo = new win.MutationObserver((/** @type {MutationRecord[]} */ records) => {
      if (relevant(records)) schedule();
    });
    mo.observe(root, { childList: true, subtree: true, attributes: true, characterData: true });
    observers.set(root, mo);
    root.addEventListener('reset', onReset, true);
  };

  /** @param {Event} e */
  const onReset = (e) => {
    const form = /** @type {any} */ (e.target);
    for (const cancel of registrations.get(form)?.cancel ?? []) cancel(new Error('The form was reset before it was submitted.'));
  };

  /** @returns {HTMLFormElement[]} the tool forms of the document and its open shadow roots */
  const findForms = () => {
    /** @type {HTMLFormElement[]} */
    const forms = [];
    /** @type {Node[]} */
    const roots = [doc];
    for (let i = 0; i < roots.length; i++) {
      const root = /** @type {any} */ (roots[i]);
      observe(root);
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot && el.localName !== 'byomcp-chat') roots.push(el.shadowRoot);
        if (el.localName === 'form' && el.hasAttribute('toolname')) forms.push(el);
      }
    }
    for (const [root, mo] of observers) {
      if (root !== doc && !/** @type {any} */ (root).host?.isConnected) {
        mo.disconnect();
        observers.delete(root);
        root.removeEventListener('reset', onReset, true);
      }
    }
    return forms;
  };

  const sync = () => {
    /** @type {Map<HTMLFormElement, {def: NonNullable<ReturnType<typeof formTool>>, fingerprint: string}>} */
    const wanted = new Map();
    const names = new Set();
    for (const form of findForms()) {
      const def = formTool(form);
      if (!def) continue;
      if (!def.description) {
        warnOnce(form, 'has no tooldescription: not offered to the agent');
        continue;
      }
      if (names.has(def.name)) {
        warnOnce(form, 'repeats the name of an earlier form: not offered to the agent');
        continue;
      }
      names.add(def.name);
      wanted.set(form, { def, fingerprint: JSON.stringify(def) });
    }
    for (const [form, reg] of [...registrations]) {
      if (wanted.get(form)?.fingerprint === reg.fingerprint) continue;
      for (const cancel of reg.cancel) cancel(new Error('The form changed or went away before it was submitted.'));
      reg.controller.abort();
      registrations.delete(form);
    }
    for (const [form, { def, fingerprint }] of wanted) {
      if (registrations.has(form)) continue;
      const controller = new AbortController();
      const reg = { controller, fingerprint, cancel: new Set() };
      registrations.set(form, reg);
      mc.registerTool(
        {
          name: def.name,
          title: def.title,
          description: def.description,
          inputSchema: def.inputSchema,
          execute: (/** @type {any} */ input, /** @type {any} */ client) => invoke(form, def, reg, input ?? {}, client?.signal),
          [FORM_TOOL]: true,
          [CARD_SCHEMA]: () => cardSchema(form),
        },
        { signal: controller.signal },
      ).catch((err) => {
        if (controller.signal.aborted) return;
        controller.abort();
        registrations.delete(form);
        warnOnce(form, `was not registered: ${err?.message ?? err}`);
      });
    }
  };

  /**
   * Runs a form tool: fill, then (toolautosubmit) validate and submit, and answer with the
   * page's respondWith value.
   * @param {HTMLFormElement} form
   * @param {NonNullable<ReturnType<typeof formTool>>} def
   * @param {{cancel: Set<(err: Error) => void>}} reg
   * @param {any} input
   * @param {AbortSignal|undefined} signal
   */
  const invoke = async (form, def, reg, input, signal) => {
    const filled = fillForm(form, input);
    const button = submitButton(form);
    // 'toolactivated' {toolName}: at the model context (the explainer) and at the window (where
    // @mcp-b/webmcp-polyfill fires it), so pages written for either see it.
    const activated = () => fireToolEvent([mc, win], 'toolactivated', def.name);
    if (!def.autosubmit) {
      button?.focus?.();
      activated();
      return leftToVisitor(form, def.name, filled);
    }
    if (!form.checkValidity()) {
      throw new Error(`Form validation failed, nothing was submitted. Correct these fields: ${invalidFields(form).join('; ')}.`);
    }
    /** @type {Event|null} */
    let event = null;
    const record = (/** @type {Event} */ e) => {
      event = e;
      agentEvents.add(e);
    };
    const state = { dispatching: true };
    submitting.set(form, state);
    form.addEventListener('submit', record, { capture: true, once: true });
    try {
      form.requestSubmit(button && button.form === form ? button : undefined);
    } finally {
      state.dispatching = false;
      submitting.delete(form);
      form.removeEventListener('submit', record, { capture: true });
    }
    activated();
    const ev = /** @type {Event|null} */ (event);
    if (!ev) throw new Error(`The form "${def.name}" was not submitted (the browser refused the submission).`);
    const response = responses.get(ev);
    if (response) {
      // A form its submit handler removed (or moved) is no longer the tool that was called.
      if (!form.isConnected) throw new Error(`The form "${def.name}" went away before it answered.`);
      return untilCancelled(response, reg, signal, def.name);
    }
    if (ev.defaultPrevented) return `Submitted the form "${def.name}"; the page handled it and gave no response.`;
    return { content: [{ type: 'text', text: `Submitted the form "${def.name}"; the page is loading the result.` }], _meta: { 'byomcp/navigating': true } };
  };

  /**
   * Settles like p, or rejects when the call is cancelled, the form is reset or goes away
   * (and fires toolcancel then).
   * @param {Promise<unknown>} p
   * @param {{cancel: Set<(err: Error) => void>}} reg
   * @param {AbortSignal|undefined} signal
   * @param {string} name the tool's
   */
  const untilCancelled = (p, reg, signal, name) =>
    new Promise((resolve, reject) => {
      const cancel = (/** @type {unknown} */ err) => {
        done();
        reject(err);
        fireToolEvent([mc, win], 'toolcancel', name);
      };
      const onAbort = () => cancel(signal?.reason);
      const done = () => {
        reg.cancel.delete(cancel);
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) return cancel(signal.reason);
      reg.cancel.add(cancel);
      signal?.addEventListener('abort', onAbort, { once: true });
      p.then(
        (v) => {
          done();
          resolve(v);
        },
        (err) => {
          done();
          reject(err);
        },
      );
    });

  sync();
  return () => {
    stopped = true;
    for (const [root, mo] of observers) {
      mo.disconnect();
      root.removeEventListener('reset', onReset, true);
    }
    observers.clear();
    for (const reg of registrations.values()) reg.controller.abort();
    registrations.clear();
  };
}
