// Shared code of the Northwind Motors demo pages: the car data, formatting, the car drawings,
// the "the assistant did this" feedback, and registering page tools with document.modelContext.

/** Body types, fuels and colours the inventory uses (the tools' enums). */
export const BODY_TYPES = ['suv', 'sedan', 'hatchback', 'pickup', 'coupe', 'wagon', 'minivan', 'convertible'];
export const FUELS = ['gasoline', 'diesel', 'hybrid', 'electric'];
export const COLORS = ['black', 'white', 'silver', 'gray', 'red', 'blue', 'green'];

/** Paint colours of the drawings. */
export const COLOR_HEX = {
  black: '#1f2937',
  white: '#f8fafc',
  silver: '#cbd5e1',
  gray: '#6b7280',
  red: '#dc2626',
  blue: '#2563eb',
  green: '#15803d',
};

const BODY_LABELS = {
  suv: 'SUV',
  sedan: 'Sedan',
  hatchback: 'Hatchback',
  pickup: 'Pickup',
  coupe: 'Coupe',
  wagon: 'Wagon',
  minivan: 'Minivan',
  convertible: 'Convertible',
};

/** @type {Promise<any[]>|null} */
let carsPromise = null;

/**
 * The inventory (demo-site/data/cars.json), loaded once per page.
 * @returns {Promise<any[]>}
 */
export function loadCars() {
  carsPromise ??= fetch(new URL('../data/cars.json', import.meta.url)).then((r) => {
    if (!r.ok) throw new Error(`cannot load the inventory: HTTP ${r.status}`);
    return r.json();
  });
  return carsPromise;
}

/** @param {number} n */
export function money(n) {
  return `$${Math.round(n).toLocaleString('en-US')}`;
}

/** Dollars and cents: "$597.50". @param {number} n */
export function moneyCents(n) {
  return `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** @param {number} n */
export function miles(n) {
  return `${n.toLocaleString('en-US')} mi`;
}

/** @param {string} s */
export function capitalize(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** @param {string} bodyType */
export function bodyLabel(bodyType) {
  return BODY_LABELS[bodyType] ?? capitalize(bodyType);
}

/** "2023 Toyota RAV4" */
export function carTitle(car) {
  return `${car.year} ${car.make} ${car.model}`;
}

/**
 * Creates an element with attributes and children (text children become text nodes).
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node|string|null|undefined|false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c);
  }
  return el;
}

/**
 * The side-view drawing of a car in a colour (an <svg> using the sprite in img/cars.svg).
 * @param {any} car
 * @param {string} [color] defaults to the car's first colour
 * @returns {SVGSVGElement}
 */
export function carDrawing(car, color = car.colors[0]) {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = /** @type {SVGSVGElement} */ (document.createElementNS(NS, 'svg'));
  svg.setAttribute('viewBox', '0 0 320 140');
  svg.setAttribute('class', 'car-drawing');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `${color} ${carTitle(car)}`);
  svg.style.setProperty('--car-body', COLOR_HEX[color] ?? COLOR_HEX.gray);
  const use = document.createElementNS(NS, 'use');
  use.setAttribute('href', new URL(`../${car.image}`, import.meta.url).href);
  svg.append(use);
  return svg;
}

/**
 * Re-colours a drawing made by carDrawing.
 * @param {SVGSVGElement} svg
 * @param {any} car
 * @param {string} color
 */
export function paintDrawing(svg, car, color) {
  svg.style.setProperty('--car-body', COLOR_HEX[color] ?? COLOR_HEX.gray);
  svg.setAttribute('aria-label', `${color} ${carTitle(car)}`);
}

/** A colour dot for swatches and chips. */
export function colorDot(color) {
  return h('span', { class: `dot dot-${color}`, style: `--dot:${COLOR_HEX[color] ?? '#999'}`, title: capitalize(color) });
}

let toastTimer = 0;

/**
 * Shows a short message at the top of the page ("The assistant filtered the inventory").
 * @param {string} text
 */
export function toast(text) {
  let el = document.getElementById('toast');
  if (!el) {
    el = h('div', { id: 'toast', class: 'toast', role: 'status', 'aria-live': 'polite' });
    document.body.append(el);
  }
  el.textContent = text;
  el.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove('show'), 2600);
}

/**
 * Briefly highlights what a tool changed.
 * @param {Element|null} el
 */
export function flash(el) {
  if (!el) return;
  el.classList.remove('flash');
  // Restart the animation.
  void (/** @type {HTMLElement} */ (el).offsetWidth);
  el.classList.add('flash');
}

/**
 * The model context tools are registered with: the widget's polyfill, a native one, or the
 * pre-load queue when the widget has not loaded yet.
 * @returns {any}
 */
export function modelContext() {
  const d = /** @type {any} */ (document);
  d.modelContext ??= {
    __byomcpQueue: [],
    registerTool(t, o) {
      this.__byomcpQueue.push([t, o]);
    },
  };
  return d.modelContext;
}

/**
 * Registers page tools; aborting signal unregisters them (used by the compare drawer).
 * @param {any[]} tools
 * @param {{signal?: AbortSignal}} [options]
 */
export function registerTools(tools, { signal } = {}) {
  const mc = modelContext();
  for (const tool of tools) {
    // registerTool returns a Promise in the WebMCP draft (undefined from the pre-load queue).
    Promise.resolve()
      .then(() => mc.registerTool(tool, signal ? { signal } : undefined))
      .catch((err) => {
        if (!signal?.aborted) console.warn(`Northwind: tool ${tool.name} not registered:`, err);
      });
  }
}

/**
 * Navigates shortly after a tool answered, so its result reaches the agent before the page goes.
 * @param {string} url
 */
export function navigateSoon(url) {
  setTimeout(() => {
    location.href = url;
  }, 150);
}

/**
 * The result of a tool that navigates: `_meta["byomcp/navigating"]` tells the agent to wait for
 * the next page (and its tools) before it goes on, instead of racing the navigation.
 * @param {string} text
 */
export function navigating(text) {
  return { content: [{ type: 'text', text }], _meta: { 'byomcp/navigating': true } };
}

/** The tool every page but the inventory offers: the way back to the list of cars. */
export const backToInventory = {
  name: 'back_to_inventory',
  description: 'Go back to the inventory page.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  execute() {
    navigateSoon('/');
    return navigating('Going back to the inventory page; its search tools will be available once it has loaded.');
  },
};

/** The site header every page shares: written once here, placed in each page's empty <header>. */
const SITE_HEADER = `<div class="inner">
    <a class="brand" href="/">
      <svg width="30" height="30" viewBox="0 0 32 32" aria-hidden="true"><rect width="32" height="32" rx="8" fill="#0f766e"/><path d="M9 23V9h2.6l7.8 9.6V9H22v14h-2.6l-7.8-9.6V23z" fill="#fff"/></svg>
      Northwind Motors
    </a>
    <nav class="site-nav" aria-label="Main">
      <a href="/">Inventory</a>
      <a href="/financing.html">Financing</a>
      <a href="/test-drive.html">Test drive</a>
    </nav>
    <span class="header-phone">Call us: (555) 014-2290</span>
  </div>`;

/** Fills the page's site header (static markup of the demo itself) and marks the current page. */
export function markNav() {
  const header = document.querySelector('header.site-header');
  if (header && !header.firstElementChild) header.innerHTML = SITE_HEADER;
  const path = location.pathname.replace(/\/index\.html$/, '/');
  for (const a of document.querySelectorAll('.site-nav a')) {
    const href = new URL(/** @type {HTMLAnchorElement} */ (a).href).pathname.replace(/\/index\.html$/, '/');
    if (href === path) a.setAttribute('aria-current', 'page');
  }
}

/**
 * The configuration chosen for a car on its page (kept for the test-drive and financing pages).
 * @param {any} car
 * @returns {{trim: string, color: string, packages: string[]}}
 */
export function loadConfig(car) {
  try {
    const v = JSON.parse(sessionStorage.getItem(`northwind:config:${car.id}`) ?? 'null');
    if (v && car.trims.some((t) => t.name === v.trim) && car.colors.includes(v.color) && Array.isArray(v.packages)) {
      return { trim: v.trim, color: v.color, packages: v.packages.filter((p) => car.packages.some((x) => x.id === p)) };
    }
  } catch {
    // fall through to the default configuration
  }
  return { trim: car.trims[0].name, color: car.colors[0], packages: [] };
}

/**
 * @param {any} car
 * @param {{trim: string, color: string, packages: string[]}} config
 */
export function saveConfig(car, config) {
  try {
    sessionStorage.setItem(`northwind:config:${car.id}`, JSON.stringify(config));
  } catch {
    // private mode: the configuration just does not follow to the next page
  }
}

/**
 * The price breakdown of a configured car.
 * @param {any} car
 * @param {{trim: string, color: string, packages: string[]}} config
 */
export function priceBreakdown(car, config) {
  const trim = car.trims.find((t) => t.name === config.trim) ?? car.trims[0];
  const packages = car.packages.filter((p) => config.packages.includes(p.id));
  const total = car.price + trim.price + packages.reduce((s, p) => s + p.price, 0);
  return {
    base: car.price,
    trim: { name: trim.name, price: trim.price },
    color: config.color,
    packages: packages.map((p) => ({ id: p.id, name: p.name, price: p.price })),
    total,
  };
}

/** Text summary of a breakdown, for tool results. */
export function breakdownText(car, b) {
  const pk = b.packages.length ? b.packages.map((p) => `${p.name} ${money(p.price)}`).join(', ') : 'no packages';
  return `${carTitle(car)} (${car.id}), ${b.trim.name} trim (+${money(b.trim.price)}), ${b.color}, ${pk}. Base ${money(b.base)}, total ${money(b.total)}.`;
}
