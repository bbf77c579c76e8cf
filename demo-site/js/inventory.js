// The inventory page: filters (mirrored in the URL), sorting, the car grid, the compare drawer,
// and the page tools the assistant uses for each of them.
import {
  BODY_TYPES, FUELS, COLORS, loadCars, money, miles, capitalize, bodyLabel, carTitle, h, carDrawing,
  colorDot, toast, flash, registerTools, navigateSoon, navigating, markNav,
} from './common.js';

const FILTER_KEYS = ['bodyType', 'make', 'fuel', 'color', 'minPrice', 'maxPrice', 'maxMileage', 'minYear'];
const NUMERIC = new Set(['minPrice', 'maxPrice', 'maxMileage', 'minYear']);
const SORT_BY = ['price', 'year', 'mileage'];

markNav();
const cars = await loadCars();
const byId = new Map(cars.map((c) => [c.id, c]));
const MAKES = [...new Set(cars.map((c) => c.make))].sort();
const YEARS = [...new Set(cars.map((c) => c.year))].sort();

/** @type {Record<string, string|number>} */
let filters = {};
/** @type {{by: string, order: string}|null} */
let sort = null;
/** @type {string[]} cars ticked for comparison */
let compareIds = [];
/** @type {{ids: string[], abort: AbortController, el: HTMLElement, returnFocus: Element|null}|null} */
let drawer = null;

const form = /** @type {HTMLFormElement} */ (document.getElementById('filter-form'));
const grid = /** @type {HTMLElement} */ (document.getElementById('grid'));
const countEl = /** @type {HTMLElement} */ (document.getElementById('results-count'));
const sortEl = /** @type {HTMLSelectElement} */ (document.getElementById('sort'));
const activeEl = /** @type {HTMLElement} */ (document.getElementById('active-filters'));
const compareBar = /** @type {HTMLElement} */ (document.getElementById('compare-bar'));

fillSelect('bodyType', BODY_TYPES, bodyLabel);
fillSelect('make', MAKES, (m) => m);
fillSelect('fuel', FUELS, capitalize);
fillSelect('color', COLORS, capitalize);
fillSelect('minYear', YEARS, String);

readURL();
writeForm();
render();

form.addEventListener('input', () => {
  filters = readForm();
  render();
  writeURL();
});
form.addEventListener('submit', (e) => e.preventDefault());
sortEl.addEventListener('change', () => {
  const [by, order] = sortEl.value.split('-');
  sort = by ? { by, order } : null;
  render();
  writeURL();
});
document.getElementById('clear')?.addEventListener('click', () => {
  filters = {};
  writeForm();
  render();
  writeURL();
});
const toggle = /** @type {HTMLButtonElement} */ (document.getElementById('filters-toggle'));
toggle.addEventListener('click', () => {
  const open = form.closest('.filters')?.classList.toggle('open') ?? false;
  toggle.setAttribute('aria-expanded', String(open));
  toggle.textContent = open ? 'Hide' : 'Show';
});
document.getElementById('compare-clear')?.addEventListener('click', () => {
  compareIds = [];
  render();
});
document.getElementById('compare-open')?.addEventListener('click', () => openCompare(compareIds));
window.addEventListener('popstate', () => {
  readURL();
  writeForm();
  render();
});

registerTools([
  {
    name: 'search_cars',
    description: 'Filter the car inventory shown on the page.',
    inputSchema: {
      type: 'object',
      properties: {
        bodyType: { type: 'string', enum: BODY_TYPES },
        make: { type: 'string', enum: MAKES },
        fuel: { type: 'string', enum: FUELS },
        color: { type: 'string', enum: COLORS },
        minPrice: { type: 'number', minimum: 0 },
        maxPrice: { type: 'number', minimum: 0 },
        maxMileage: { type: 'number', minimum: 0 },
        minYear: { type: 'integer', minimum: 1990, maximum: 2030 },
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false },
    execute(args) {
      filters = sanitize(args ?? {});
      writeForm();
      const shown = render();
      writeURL();
      toast(`Assistant: showing ${shown.length} ${shown.length === 1 ? 'car' : 'cars'}${describeFilters(filters)}`);
      flash(grid);
      return listResult(shown);
    },
  },
  {
    name: 'sort_cars',
    description: 'Sort the inventory.',
    inputSchema: {
      type: 'object',
      properties: {
        by: { type: 'string', enum: SORT_BY },
        order: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
      },
      required: ['by'],
      additionalProperties: false,
    },
    execute({ by, order = 'asc' } = {}) {
      if (!SORT_BY.includes(by)) throw new Error(`Cannot sort by ${JSON.stringify(by)}; use one of ${SORT_BY.join(', ')}.`);
      sort = { by, order: order === 'desc' ? 'desc' : 'asc' };
      sortEl.value = `${sort.by}-${sort.order}`;
      const shown = render();
      writeURL();
      toast(`Assistant: sorted by ${by} (${sort.order === 'asc' ? 'ascending' : 'descending'})`);
      flash(grid);
      const r = listResult(shown);
      r.content[0].text = `Sorted by ${by} ${sort.order}. ${r.content[0].text}`;
      return r;
    },
  },
  {
    name: 'select_car',
    description: 'Open the detail and configurator page of one car.',
    inputSchema: {
      type: 'object',
      properties: { carId: { type: 'string', pattern: '^c[0-9]{2}$' } },
      required: ['carId'],
      additionalProperties: false,
    },
    execute({ carId }) {
      const car = byId.get(carId);
      if (!car) throw new Error(`There is no car with id ${carId}. Use search_cars to see the ids.`);
      toast(`Assistant: opening the ${carTitle(car)}`);
      navigateSoon(`car.html?id=${encodeURIComponent(car.id)}`);
      return navigating(`Opening the page of the ${carTitle(car)} (${car.id}, ${money(car.price)}). Its configurator tools will be available once it has loaded.`);
    },
  },
  {
    name: 'compare_cars',
    description: 'Open the comparison drawer for two or three cars.',
    inputSchema: {
      type: 'object',
      properties: {
        carIds: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 3, uniqueItems: true },
      },
      required: ['carIds'],
      additionalProperties: false,
    },
    execute({ carIds }) {
      const ids = Array.isArray(carIds) ? [...new Set(carIds)] : [];
      const unknown = ids.filter((id) => !byId.has(id));
      if (unknown.length) throw new Error(`Unknown car id(s): ${unknown.join(', ')}.`);
      if (ids.length < 2 || ids.length > 3) throw new Error('Compare two or three different cars.');
      compareIds = ids;
      openCompare(ids);
      toast('Assistant: comparing cars');
      return comparisonResult(ids);
    },
  },
  {
    name: 'clear_filters',
    description: 'Reset all inventory filters.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    execute() {
      filters = {};
      writeForm();
      const shown = render();
      writeURL();
      toast('Assistant: filters cleared');
      flash(grid);
      const r = listResult(shown);
      r.content[0].text = `Filters cleared. ${r.content[0].text}`;
      return r;
    },
  },
]);

/**
 * @param {string} name
 * @param {Array<string|number>} values
 * @param {(v: any) => string} label
 */
function fillSelect(name, values, label) {
  const sel = /** @type {HTMLSelectElement} */ (form.elements.namedItem(name));
  for (const v of values) sel.append(h('option', { value: String(v) }, label(v)));
}

/** Keeps only known filter keys with usable values. */
function sanitize(obj) {
  /** @type {Record<string, string|number>} */
  const out = {};
  for (const k of FILTER_KEYS) {
    const v = obj[k];
    if (v === undefined || v === null || v === '') continue;
    if (NUMERIC.has(k)) {
      const n = Number(v);
      if (Number.isFinite(n) && n >= 0) out[k] = n;
    } else if (typeof v === 'string') {
      const allowed = { bodyType: BODY_TYPES, make: MAKES, fuel: FUELS, color: COLORS }[k];
      if (allowed.includes(v)) out[k] = v;
    }
  }
  return out;
}

function readForm() {
  const data = Object.fromEntries(new FormData(form));
  return sanitize(data);
}

function writeForm() {
  for (const k of FILTER_KEYS) {
    const el = /** @type {HTMLInputElement} */ (form.elements.namedItem(k));
    el.value = filters[k] === undefined ? '' : String(filters[k]);
  }
  sortEl.value = sort ? `${sort.by}-${sort.order}` : '';
}

function readURL() {
  const q = new URLSearchParams(location.search);
  filters = sanitize(Object.fromEntries(q));
  const [by, order] = (q.get('sort') ?? '').split('-');
  sort = SORT_BY.includes(by) ? { by, order: order === 'desc' ? 'desc' : 'asc' } : null;
}

function writeURL() {
  const q = new URLSearchParams();
  for (const k of FILTER_KEYS) if (filters[k] !== undefined) q.set(k, String(filters[k]));
  if (sort) q.set('sort', `${sort.by}-${sort.order}`);
  const s = q.toString();
  history.replaceState(null, '', s ? `?${s}` : location.pathname);
}

function matches(car) {
  const f = filters;
  return (
    (!f.bodyType || car.bodyType === f.bodyType) &&
    (!f.make || car.make === f.make) &&
    (!f.fuel || car.fuel === f.fuel) &&
    (!f.color || car.colors.includes(f.color)) &&
    (f.minPrice === undefined || car.price >= f.minPrice) &&
    (f.maxPrice === undefined || car.price <= f.maxPrice) &&
    (f.maxMileage === undefined || car.mileage <= f.maxMileage) &&
    (f.minYear === undefined || car.year >= f.minYear)
  );
}

/** Renders the grid and returns the cars shown, in order. */
function render() {
  let shown = cars.filter(matches);
  if (sort) {
    const { by, order } = sort;
    shown = [...shown].sort((a, b) => (order === 'desc' ? b[by] - a[by] : a[by] - b[by]));
  }
  grid.replaceChildren(...shown.map(card));
  if (shown.length === 0) {
    grid.append(h('div', { class: 'empty-state' }, 'No car matches these filters. ', h('button', { type: 'button', class: 'linkish', onclick: () => document.getElementById('clear')?.click() }, 'Reset the filters')));
  }
  countEl.textContent = `${shown.length} ${shown.length === 1 ? 'car' : 'cars'} available`;
  activeEl.replaceChildren(...Object.entries(filters).map(([k, v]) => h('span', { class: 'chip' }, filterLabel(k, v))));
  compareBar.hidden = compareIds.length === 0;
  const cc = document.getElementById('compare-count');
  if (cc) cc.textContent = `${compareIds.length} selected${compareIds.length < 2 ? ' (pick 2–3)' : ''}`;
  const openBtn = /** @type {HTMLButtonElement|null} */ (document.getElementById('compare-open'));
  if (openBtn) openBtn.disabled = compareIds.length < 2;
  return shown;
}

function card(car) {
  const url = `car.html?id=${car.id}`;
  const checked = compareIds.includes(car.id);
  const box = h('input', { type: 'checkbox', checked, 'aria-label': `Compare the ${carTitle(car)}` });
  box.addEventListener('change', () => {
    if (box.checked) {
      if (compareIds.length >= 3) {
        box.checked = false;
        toast('You can compare up to three cars');
        return;
      }
      compareIds = [...compareIds, car.id];
    } else {
      compareIds = compareIds.filter((id) => id !== car.id);
    }
    render();
  });
  return h(
    'article',
    { class: 'card', dataset: { carId: car.id } },
    h('a', { class: 'pic', href: url, tabindex: '-1', 'aria-hidden': 'true' }, carDrawing(car)),
    h(
      'div',
      { class: 'body' },
      h('h3', {}, h('a', { href: url }, carTitle(car))),
      h('div', { class: 'meta' }, `${bodyLabel(car.bodyType)} · ${miles(car.mileage)} · `, h('span', { class: `badge ${car.fuel}` }, capitalize(car.fuel))),
      h('div', { class: 'row' }, h('span', { class: 'price' }, money(car.price)), h('span', { class: 'dots', 'aria-label': `Colors: ${car.colors.join(', ')}` }, ...car.colors.map(colorDot))),
      h('div', { class: 'row' }, h('label', { class: 'compare-toggle' }, box, 'Compare'), h('a', { class: 'btn small secondary', href: url }, 'Details')),
    ),
  );
}

function filterLabel(k, v) {
  switch (k) {
    case 'bodyType': return bodyLabel(String(v));
    case 'make': return String(v);
    case 'fuel': return capitalize(String(v));
    case 'color': return `${capitalize(String(v))} available`;
    case 'minPrice': return `From ${money(Number(v))}`;
    case 'maxPrice': return `Up to ${money(Number(v))}`;
    case 'maxMileage': return `Up to ${miles(Number(v))}`;
    case 'minYear': return `${v} or newer`;
    default: return `${k}: ${v}`;
  }
}

function describeFilters(f) {
  const parts = Object.entries(f).map(([k, v]) => filterLabel(k, v).toLowerCase());
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** The search_cars-style result for a list of cars. */
function listResult(shown) {
  const list = shown.map((c) => `${c.id} ${c.year} ${c.make} ${c.model} $${c.price}`).join('; ');
  const text = shown.length
    ? `Showing ${shown.length} ${shown.length === 1 ? 'car' : 'cars'}: ${list}`
    : 'Showing 0 cars: no car matches these filters.';
  return {
    content: [{ type: 'text', text }],
    structuredContent: {
      count: shown.length,
      cars: shown.map((c) => ({ id: c.id, make: c.make, model: c.model, year: c.year, price: c.price, mileage: c.mileage, bodyType: c.bodyType, fuel: c.fuel })),
    },
  };
}

function comparisonResult(ids) {
  const list = ids.map((id) => /** @type {any} */ (byId.get(id)));
  const line = (label, f) => `${label}: ${list.map((c) => `${c.id} ${f(c)}`).join(' | ')}`;
  const text = [
    `Comparing ${list.map((c) => `${c.id} ${carTitle(c)}`).join(', ')}.`,
    line('Price', (c) => money(c.price)),
    line('Year', (c) => c.year),
    line('Mileage', (c) => miles(c.mileage)),
    line('Body', (c) => c.bodyType),
    line('Fuel', (c) => c.fuel),
    line('Trims', (c) => c.trims.map((t) => t.name).join('/')),
    line('Packages', (c) => c.packages.map((p) => p.name).join('/')),
  ].join('\n');
  return {
    content: [{ type: 'text', text }],
    structuredContent: {
      cars: list.map((c) => ({
        id: c.id, make: c.make, model: c.model, year: c.year, price: c.price, mileage: c.mileage,
        bodyType: c.bodyType, fuel: c.fuel, colors: c.colors, trims: c.trims.map((t) => t.name), packages: c.packages.map((p) => p.id),
      })),
    },
  };
}

/** Opens (or refreshes) the compare drawer; its tools exist only while it is open. */
function openCompare(ids) {
  if (ids.length < 2) return;
  if (drawer) closeCompare({ restoreFocus: false });
  const list = ids.map((id) => /** @type {any} */ (byId.get(id)));
  const best = (f, pick) => {
    const v = pick(...list.map(f));
    return (c) => (f(c) === v ? 'best' : undefined);
  };
  const lowPrice = best((c) => c.price, Math.min);
  const newYear = best((c) => c.year, Math.max);
  const lowMiles = best((c) => c.mileage, Math.min);
  const row = (label, f, cls = () => undefined) =>
    h('tr', {}, h('th', { scope: 'row' }, label), ...list.map((c) => h('td', { class: cls(c) }, f(c))));
  const closeBtn = h('button', { type: 'button', class: 'btn small secondary', onclick: () => closeCompare() }, 'Close');
  const table = h(
    'table',
    { class: 'compare-table' },
    h('thead', {}, h('tr', {}, h('th', {}), ...list.map((c) => h('th', { scope: 'col' }, carDrawing(c), h('a', { href: `car.html?id=${c.id}` }, carTitle(c)))))),
    h(
      'tbody',
      {},
      row('Price', (c) => money(c.price), lowPrice),
      row('Year', (c) => String(c.year), newYear),
      row('Mileage', (c) => miles(c.mileage), lowMiles),
      row('Body', (c) => bodyLabel(c.bodyType)),
      row('Fuel', (c) => capitalize(c.fuel)),
      row('Colors', (c) => h('span', { class: 'dots' }, ...c.colors.map(colorDot))),
      row('Trims', (c) => c.trims.map((t) => t.name).join(', ')),
      row('Packages', (c) => c.packages.map((p) => p.name).join(', ')),
    ),
  );
  const backdrop = h('div', { class: 'drawer-backdrop', onclick: () => closeCompare() });
  const panel = h(
    'aside',
    { class: 'drawer', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'compare-title', id: 'compare-drawer' },
    h('header', {}, h('h2', { id: 'compare-title' }, `Comparing ${list.length} cars`), closeBtn),
    h('div', { class: 'content' }, table),
  );
  const el = h('div', { class: 'drawer-root' }, backdrop, panel);
  el.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') closeCompare();
  });
  const abort = new AbortController();
  drawer = { ids, abort, el, returnFocus: document.activeElement };
  document.body.append(el);
  closeBtn.focus({ preventScroll: true });
  registerTools(
    [
      {
        name: 'get_comparison',
        description: 'Return the side-by-side comparison of the cars in the open drawer',
        inputSchema: { type: 'object', properties: {}, additionalProperties: false },
        annotations: { readOnlyHint: true },
        execute: () => comparisonResult(ids),
      },
      {
        name: 'close_comparison',
        description: 'Close the comparison drawer.',
        inputSchema: { type: 'object', properties: {}, additionalProperties: false },
        execute() {
          closeCompare();
          return 'The comparison drawer is closed.';
        },
      },
    ],
    { signal: abort.signal },
  );
  render();
}

function closeCompare({ restoreFocus = true } = {}) {
  if (!drawer) return;
  const d = drawer;
  drawer = null;
  d.abort.abort();
  d.el.remove();
  if (restoreFocus && d.returnFocus instanceof HTMLElement && d.returnFocus.isConnected) d.returnFocus.focus();
}
