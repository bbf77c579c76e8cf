// The test-drive booking page: the form, the booking, and the page tools to fill and submit it.
import {
  loadCars, money, carTitle, h, carDrawing, toast, flash, registerTools, markNav, loadConfig, priceBreakdown, navigateSoon, navigating,
  backToInventory,
} from './common.js';

const TIMES = ['09:00', '10:00', '11:00', '13:00', '14:00', '15:00', '16:00'];
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE_RE = /^[+0-9 ()-]{6,20}$/;

markNav();
const cars = await loadCars();
const form = /** @type {HTMLFormElement} */ (document.getElementById('test-drive-form'));
const errorEl = /** @type {HTMLElement} */ (document.getElementById('form-error'));
const bookedEl = /** @type {HTMLElement} */ (document.getElementById('booked'));
const carSelect = /** @type {HTMLSelectElement} */ (document.getElementById('td-car'));
const summary = /** @type {HTMLElement} */ (document.getElementById('car-summary'));
const dateInput = /** @type {HTMLInputElement} */ (document.getElementById('td-date'));

const params = new URLSearchParams(location.search);
let car = cars.find((c) => c.id === params.get('id'));
dateInput.min = new Date().toISOString().slice(0, 10);

if (car) {
  // The car comes from the link: the hidden picker is no field of the form (nor of its tool).
  carSelect.disabled = true;
} else {
  // Reached from the menu: let the visitor pick the car.
  document.getElementById('car-field')?.removeAttribute('hidden');
  carSelect.append(h('option', { value: '' }, 'Choose a car'), ...cars.map((c) => h('option', { value: c.id }, `${carTitle(c)} — ${money(c.price)}`)));
  carSelect.required = true;
  carSelect.addEventListener('change', () => {
    car = cars.find((c) => c.id === carSelect.value);
    showCar();
  });
}
showCar();

form.addEventListener('submit', (e) => {
  e.preventDefault();
  try {
    book();
  } catch (err) {
    errorEl.textContent = err instanceof Error ? err.message : String(err);
  }
});

// The form itself is the fill_form_data tool (declarative WebMCP: toolname in test-drive.html;
// the schema comes from its fields, the agent fills them and leaves the sending to the visitor).
// Booking is an imperative tool that the visitor confirms.
// 'toolactivated' comes to the window (byomcp's document.modelContext, the polyfill) or to the
// model context (Chromium's own; byomcp's fires at both: the second of the same fill is skipped).
let activatedNow = false;
const onActivated = (/** @type {Event} */ e) => {
  if (/** @type {any} */ (e).toolName !== 'fill_form_data' || activatedNow) return;
  activatedNow = true;
  queueMicrotask(() => (activatedNow = false));
  errorEl.textContent = '';
  flash(form);
  const missing = problems();
  toast(missing.length ? `Assistant: filled the form. Still needed: ${missing.join(', ')}` : 'Assistant: filled the form');
};
window.addEventListener('toolactivated', onActivated);
/** @type {any} */ (document).modelContext?.addEventListener?.('toolactivated', onActivated);

registerTools([
  {
    name: 'book_test_drive',
    description: 'Submit the test-drive booking.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { destructiveHint: true },
    // What the visitor's confirmation card says the call will do (the form has the details).
    _meta: { 'byomcp/summary': bookingSummary },
    execute() {
      const booking = book();
      return {
        content: [{ type: 'text', text: `Booked test drive ${booking.reference}: ${booking.car} on ${booking.date} at ${booking.time} for ${booking.name} (${booking.email}).` }],
        structuredContent: booking,
      };
    },
  },
  {
    name: 'go_to_financing',
    description: 'Go to the financing calculator for this car.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    execute() {
      toast('Assistant: opening the financing calculator');
      if (!car) {
        navigateSoon('financing.html');
        return navigating('Opening the financing calculator; its tools will be available once it has loaded.');
      }
      const total = priceBreakdown(car, loadConfig(car)).total;
      navigateSoon(`financing.html?id=${car.id}&price=${total}`);
      return navigating(`Opening the financing calculator for the ${carTitle(car)} at ${money(total)}; its tools will be available once it has loaded.`);
    },
  },
  backToInventory,
]);

/** The booking as one line, for the confirmation card. */
function bookingSummary() {
  const missing = problems();
  if (missing.length) return `Book a test drive (still missing: ${missing.join(', ')})`;
  const when = new Date(`${value('date')}T${value('time')}`).toLocaleString('en-US', { weekday: 'short', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
  return `Book a test drive of the ${carTitle(car)} on ${when} for ${value('name')}`;
}

function value(k) {
  return String(/** @type {HTMLInputElement} */ (form.elements.namedItem(k)).value ?? '').trim();
}

/** What prevents booking now, as human-readable problems. */
function problems() {
  const out = [];
  if (!car) out.push('choose a car');
  if (value('name').length < 2) out.push('name');
  if (!EMAIL_RE.test(value('email'))) out.push('a valid email');
  if (value('phone') && !PHONE_RE.test(value('phone'))) out.push('a valid phone number');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value('date'))) out.push('date');
  else if (value('date') < dateInput.min) out.push('a date from today on');
  if (!TIMES.includes(value('time'))) out.push('time');
  return out;
}

/** Books the test drive or throws saying what is missing. */
function book() {
  if (!bookedEl.hidden) throw new Error('This test drive is already booked.');
  const missing = problems();
  if (missing.length) {
    errorEl.textContent = `Please provide: ${missing.join(', ')}.`;
    flash(form);
    throw new Error(`Cannot book yet. Missing or invalid: ${missing.join(', ')}. Use fill_form_data first.`);
  }
  const reference = `TD-${Math.floor(1000 + Math.random() * 9000)}`;
  const booking = {
    reference,
    carId: car.id,
    car: carTitle(car),
    name: value('name'),
    email: value('email'),
    phone: value('phone'),
    date: value('date'),
    time: value('time'),
    notes: value('notes'),
  };
  try {
    const all = JSON.parse(localStorage.getItem('northwind:bookings') ?? '[]');
    all.push(booking);
    localStorage.setItem('northwind:bookings', JSON.stringify(all));
  } catch {
    // The booking is still shown; it just is not remembered.
  }
  form.hidden = true;
  bookedEl.replaceChildren(
    h('h2', {}, 'You are booked!'),
    h('p', {}, `Reference `, h('strong', { id: 'booking-ref' }, reference), `. We will have the ${booking.car} ready on ${booking.date} at ${booking.time}.`),
    h('p', {}, `A confirmation is on its way to ${booking.email}.`),
    h('a', { class: 'btn secondary', href: '/' }, 'Back to the inventory'),
  );
  bookedEl.hidden = false;
  bookedEl.focus();
  toast(`Test drive booked: ${reference}`);
  return booking;
}

function showCar() {
  const crumb = document.getElementById('crumb');
  if (!car) {
    summary.replaceChildren(h('h2', {}, 'Your car'), h('p', {}, 'Choose the car you would like to drive.'));
    return;
  }
  document.title = `Test drive: ${carTitle(car)} — Northwind Motors`;
  if (crumb) crumb.replaceChildren(h('a', { href: `car.html?id=${car.id}` }, `${car.make} ${car.model}`), ' / Test drive');
  const config = loadConfig(car);
  const b = priceBreakdown(car, config);
  summary.replaceChildren(
    h('div', { class: 'pic' }, carDrawing(car, config.color)),
    h('h2', {}, carTitle(car)),
    h('dl', { class: 'kv' },
      h('dt', {}, 'Trim'), h('dd', {}, b.trim.name),
      h('dt', {}, 'Color'), h('dd', {}, config.color),
      h('dt', {}, 'Packages'), h('dd', {}, b.packages.map((p) => p.name).join(', ') || 'None'),
      h('dt', {}, 'Total price'), h('dd', {}, h('strong', {}, money(b.total))),
    ),
  );
}
