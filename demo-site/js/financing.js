// The financing page: the loan calculator, the application form, and their page tools. The tools
// are registered before anything else runs (and before the widget script has loaded), through
// the pre-load queue defined inline in financing.html.
import {
  loadCars, money, moneyCents, carTitle, h, carDrawing, toast, flash, registerTools, markNav, loadConfig, navigateSoon, navigating, backToInventory,
} from './common.js';

markNav(); // the header first, before anything waits
const TERMS = [24, 36, 48, 60, 72];
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const calc = /** @type {HTMLFormElement} */ (document.getElementById('calc-form'));
const apply = /** @type {HTMLFormElement} */ (document.getElementById('apply-form'));
const applyError = /** @type {HTMLElement} */ (document.getElementById('apply-error'));
const applied = /** @type {HTMLElement} */ (document.getElementById('applied'));
const monthlyOut = /** @type {HTMLElement} */ (document.getElementById('monthly'));
const facts = /** @type {HTMLElement} */ (document.getElementById('loan-facts'));
/** @type {any} the car being financed, once the inventory has loaded (none when reached from the menu) */
let car = null;
// The tools are registered before the car and its price are on the form; a call that comes
// while the page loads waits for them (else it computes with no price: "nothing to finance").
/** @type {() => void} */
let pageReady = () => {};
const ready = new Promise((resolve) => { pageReady = () => resolve(undefined); });

registerTools([
  {
    name: 'calculate_payment',
    description: 'Compute the monthly loan payment.',
    inputSchema: {
      type: 'object',
      properties: {
        price: { type: 'number', minimum: 0 },
        downPayment: { type: 'number', minimum: 0 },
        termMonths: { type: 'integer', enum: TERMS },
        apr: { type: 'number', minimum: 0, maximum: 30 },
      },
      required: ['termMonths'],
      additionalProperties: false,
    },
    async execute(args = {}) {
      await ready;
      if (!TERMS.includes(args.termMonths)) throw new Error(`termMonths must be one of ${TERMS.join(', ')}.`);
      for (const k of ['price', 'downPayment', 'apr']) {
        if (args[k] !== undefined) setField(k, args[k]);
      }
      setField('termMonths', args.termMonths);
      const r = recalc();
      toast(`Assistant: ${moneyCents(r.monthly)} per month over ${r.termMonths} months`);
      flash(document.getElementById('payment'));
      if (r.loan <= 0) return { content: [{ type: 'text', text: 'The down payment covers the whole price: nothing to finance.' }], structuredContent: r };
      return {
        content: [{ type: 'text', text: `Monthly payment ${moneyCents(r.monthly)} for ${r.termMonths} months at ${r.apr}% APR on a loan of ${money(r.loan)} (price ${money(r.price)}, down ${money(r.downPayment)}). Total interest ${money(r.totalInterest)}.` }],
        structuredContent: r,
      };
    },
  },
  {
    name: 'apply_for_financing',
    description: 'Submit a financing application.',
    inputSchema: {
      type: 'object',
      properties: {
        fullName: { type: 'string', minLength: 2 },
        email: { type: 'string', format: 'email' },
        annualIncome: { type: 'number', minimum: 0 },
      },
      required: ['fullName', 'email', 'annualIncome'],
      additionalProperties: false,
    },
    annotations: { destructiveHint: true },
    async execute({ fullName, email, annualIncome }) {
      await ready;
      for (const [k, v] of Object.entries({ fullName, email, annualIncome })) {
        const el = /** @type {HTMLInputElement} */ (apply.elements.namedItem(k));
        el.value = String(v);
        flash(el);
      }
      const app = submitApplication();
      return {
        content: [{ type: 'text', text: `Application ${app.reference} submitted for ${app.fullName}: ${money(app.loan)} over ${app.termMonths} months, about ${moneyCents(app.monthly)} per month. We reply within one business day.` }],
        structuredContent: app,
      };
    },
  },
  {
    name: 'go_to_test_drive',
    description: 'Go to the test-drive booking page for this car.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    execute() {
      toast('Assistant: opening the test-drive booking');
      navigateSoon(car ? `test-drive.html?id=${car.id}` : 'test-drive.html');
      return navigating(`Opening the test-drive booking page${car ? ` for the ${carTitle(car)}` : ''}; its form tools will be available once it has loaded.`);
    },
  },
  backToInventory,
]);

const cars = await loadCars();
const params = new URLSearchParams(location.search);
car = cars.find((c) => c.id === params.get('id')) ?? null;
const priceParam = Number(params.get('price'));
const priceInput = /** @type {HTMLInputElement} */ (calc.elements.namedItem('price'));
if (Number.isFinite(priceParam) && priceParam > 0) priceInput.value = String(priceParam);
else if (car) priceInput.value = String(car.price);
else priceInput.value = '30000';
showCar();
recalc();
pageReady();

calc.addEventListener('input', () => recalc());
calc.addEventListener('submit', (e) => e.preventDefault());
apply.addEventListener('submit', (e) => {
  e.preventDefault();
  try {
    submitApplication();
  } catch (err) {
    applyError.textContent = err instanceof Error ? err.message : String(err);
  }
});

/**
 * @param {string} name
 * @param {number} v
 */
function setField(name, v) {
  const el = /** @type {HTMLInputElement} */ (calc.elements.namedItem(name));
  el.value = String(v);
  flash(el);
}

function num(name) {
  const v = Number(/** @type {HTMLInputElement} */ (calc.elements.namedItem(name)).value);
  return Number.isFinite(v) && v >= 0 ? v : 0;
}

/** Recomputes the payment from the form and shows it. */
function recalc() {
  const price = num('price');
  const downPayment = Math.min(num('downPayment'), price);
  const termMonths = TERMS.includes(num('termMonths')) ? num('termMonths') : 60;
  const apr = Math.min(num('apr'), 30);
  const loan = Math.max(price - downPayment, 0);
  const r = apr / 100 / 12;
  const monthly = loan === 0 ? 0 : r === 0 ? loan / termMonths : (loan * r) / (1 - (1 + r) ** -termMonths);
  const round = (x) => Math.round(x * 100) / 100;
  const result = {
    price, downPayment, termMonths, apr, loan,
    monthly: round(monthly),
    totalInterest: round(monthly * termMonths - loan),
    totalCost: round(monthly * termMonths + downPayment),
  };
  monthlyOut.textContent = moneyCents(result.monthly);
  facts.replaceChildren(
    h('dt', {}, 'Loan amount'), h('dd', {}, money(loan)),
    h('dt', {}, 'Term'), h('dd', {}, `${termMonths} months`),
    h('dt', {}, 'APR'), h('dd', {}, `${apr}%`),
    h('dt', {}, 'Total interest'), h('dd', {}, money(result.totalInterest)),
    h('dt', {}, 'Total cost'), h('dd', {}, money(result.totalCost)),
  );
  return result;
}

function submitApplication() {
  if (!applied.hidden) throw new Error('An application has already been submitted from this page.');
  const get = (k) => String(/** @type {HTMLInputElement} */ (apply.elements.namedItem(k)).value).trim();
  const missing = [];
  if (get('fullName').length < 2) missing.push('full name');
  if (!EMAIL_RE.test(get('email'))) missing.push('a valid email');
  const income = Number(get('annualIncome'));
  if (get('annualIncome') === '' || !Number.isFinite(income) || income < 0) missing.push('annual income');
  if (missing.length) {
    applyError.textContent = `Please provide: ${missing.join(', ')}.`;
    throw new Error(`Cannot submit. Missing or invalid: ${missing.join(', ')}.`);
  }
  const loan = recalc();
  const app = {
    reference: `FN-${Math.floor(10000 + Math.random() * 90000)}`,
    fullName: get('fullName'),
    email: get('email'),
    annualIncome: income,
    carId: car?.id ?? null,
    ...loan,
  };
  apply.hidden = true;
  applied.replaceChildren(
    h('h2', {}, 'Application received'),
    h('p', {}, 'Reference ', h('strong', {}, app.reference), `. We will email ${app.email} within one business day.`),
  );
  applied.hidden = false;
  applied.focus();
  toast(`Financing application ${app.reference} submitted`);
  return app;
}

function showCar() {
  const summary = document.getElementById('car-summary');
  const crumb = document.getElementById('crumb');
  if (!car || !summary) return;
  document.title = `Financing: ${carTitle(car)} — Northwind Motors`;
  if (crumb) crumb.replaceChildren(h('a', { href: `car.html?id=${car.id}` }, `${car.make} ${car.model}`), ' / Financing');
  const config = loadConfig(car);
  summary.replaceChildren(h('div', { class: 'pic' }, carDrawing(car, config.color)), h('strong', {}, carTitle(car)));
}
