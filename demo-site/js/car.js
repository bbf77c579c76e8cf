// The car page: details and the configurator (trim, colour, packages, live price), and the
// page tools to configure the car and move on to the test drive or financing.
import {
  loadCars, money, miles, capitalize, bodyLabel, carTitle, h, carDrawing, paintDrawing, COLOR_HEX, toast, flash,
  registerTools, navigateSoon, navigating, markNav, backToInventory, loadConfig, saveConfig, priceBreakdown, breakdownText,
} from './common.js';

markNav();
const cars = await loadCars();
const id = new URLSearchParams(location.search).get('id') ?? '';
const car = cars.find((c) => c.id === id);
const root = /** @type {HTMLElement} */ (document.getElementById('car'));

if (!car) {
  document.title = 'Car not found — Northwind Motors';
  root.replaceChildren(
    h('div', { class: 'panel' }, h('h1', {}, 'Car not found'), h('p', {}, `We have no car with the id “${id}”. `, h('a', { href: '/' }, 'Back to the inventory'))),
  );
  registerTools([backToInventory]);
} else {
  showCar(car);
}

function showCar(car) {
  document.title = `${carTitle(car)} — Northwind Motors`;
  let config = loadConfig(car);

  const drawing = carDrawing(car, config.color);
  const totalOut = h('output', { id: 'total', 'aria-live': 'polite' });
  const breakdownEl = h('dl', {});
  const colorName = h('span', { class: 'color-name' });

  const trimInputs = car.trims.map((t) =>
    h('input', { type: 'radio', name: 'trim', value: t.name, checked: t.name === config.trim }),
  );
  const colorInputs = car.colors.map((c) => h('input', { type: 'radio', name: 'color', value: c, checked: c === config.color, 'aria-label': capitalize(c) }));
  const pkgInputs = car.packages.map((p) => h('input', { type: 'checkbox', name: 'packages', value: p.id, checked: config.packages.includes(p.id) }));

  const form = h(
    'form',
    { id: 'configurator', 'aria-label': 'Configure this car' },
    h(
      'fieldset',
      { id: 'trim-set' },
      h('legend', {}, 'Trim'),
      h('div', { class: 'options' }, ...car.trims.map((t, i) => h('label', { class: 'option' }, trimInputs[i], h('span', { class: 'name' }, t.name), h('span', { class: 'extra' }, t.price ? `+${money(t.price)}` : 'Included')))),
    ),
    h(
      'fieldset',
      { id: 'color-set' },
      h('legend', {}, 'Color: ', colorName),
      h('div', { class: 'swatches' }, ...car.colors.map((c, i) => h('label', { class: 'swatch', title: capitalize(c) }, colorInputs[i], h('span', { style: `--dot:${COLOR_HEX[c]}` })))),
    ),
    h(
      'fieldset',
      { id: 'package-set' },
      h('legend', {}, 'Packages'),
      h('div', { class: 'options' }, ...car.packages.map((p, i) => h('label', { class: 'option' }, pkgInputs[i], h('span', { class: 'name' }, p.name), h('span', { class: 'extra' }, `+${money(p.price)}`)))),
    ),
  );

  const testDriveLink = h('a', { class: 'btn', id: 'test-drive-link', href: `test-drive.html?id=${car.id}` }, 'Book a test drive');
  const financeLink = h('a', { class: 'btn secondary', id: 'finance-link', href: '#' }, 'Estimate financing');

  root.replaceChildren(
    h('nav', { class: 'breadcrumb', 'aria-label': 'Breadcrumb' }, h('a', { href: '/' }, 'Inventory'), ' / ', `${car.make} ${car.model}`),
    h(
      'div',
      { class: 'car-layout' },
      h(
        'section',
        { class: 'panel showcase', 'aria-labelledby': 'car-title' },
        h('div', { class: 'stage' }, drawing),
        h(
          'div',
          { class: 'info' },
          h('h1', { id: 'car-title' }, carTitle(car)),
          h('p', {}, car.description),
          h(
            'dl',
            { class: 'specs' },
            spec('Price from', money(car.price)),
            spec('Mileage', miles(car.mileage)),
            spec('Fuel', capitalize(car.fuel)),
            spec('Body', bodyLabel(car.bodyType)),
            spec('Year', String(car.year)),
            spec('Stock no.', car.id.toUpperCase()),
          ),
        ),
      ),
      h(
        'section',
        { class: 'panel', 'aria-labelledby': 'config-title' },
        h('h2', { id: 'config-title' }, 'Configure'),
        form,
        h(
          'div',
          { class: 'summary', id: 'summary' },
          breakdownEl,
          h('div', { class: 'total' }, h('span', {}, 'Total price'), totalOut),
          h('div', { class: 'actions' }, testDriveLink, financeLink),
        ),
      ),
    ),
  );

  function spec(label, value) {
    return h('div', { class: 'spec' }, h('dt', {}, label), h('dd', {}, value));
  }

  function update() {
    const b = priceBreakdown(car, config);
    paintDrawing(/** @type {SVGSVGElement} */ (drawing), car, config.color);
    colorName.textContent = capitalize(config.color);
    breakdownEl.replaceChildren(
      h('dt', {}, 'Base price'), h('dd', {}, money(b.base)),
      h('dt', {}, `${b.trim.name} trim`), h('dd', {}, b.trim.price ? `+${money(b.trim.price)}` : 'Included'),
      ...b.packages.flatMap((p) => [h('dt', {}, p.name), h('dd', {}, `+${money(p.price)}`)]),
    );
    totalOut.textContent = money(b.total);
    financeLink.setAttribute('href', financeURL(b.total));
    saveConfig(car, config);
    return b;
  }

  function financeURL(total) {
    return `financing.html?id=${car.id}&price=${total}`;
  }

  function readForm() {
    const fd = new FormData(/** @type {HTMLFormElement} */ (form));
    config = {
      trim: String(fd.get('trim') ?? car.trims[0].name),
      color: String(fd.get('color') ?? car.colors[0]),
      packages: fd.getAll('packages').map(String),
    };
  }

  function writeForm() {
    trimInputs.forEach((el) => ((/** @type {HTMLInputElement} */ (el)).checked = el.getAttribute('value') === config.trim));
    colorInputs.forEach((el) => ((/** @type {HTMLInputElement} */ (el)).checked = el.getAttribute('value') === config.color));
    pkgInputs.forEach((el) => ((/** @type {HTMLInputElement} */ (el)).checked = config.packages.includes(el.getAttribute('value') ?? '')));
  }

  form.addEventListener('change', () => {
    readForm();
    update();
  });
  form.addEventListener('submit', (e) => e.preventDefault());
  update();

  registerTools([
    {
      name: 'configure_car',
      description: "Choose trim, color and packages for this car; updates the live price.",
      inputSchema: {
        type: 'object',
        properties: {
          trim: { type: 'string', enum: car.trims.map((t) => t.name) },
          color: { type: 'string', enum: car.colors },
          // each package by its id, titled with the name the page shows ("safety": "Driver assistance")
          packages: {
            type: 'array',
            items: { anyOf: car.packages.map((p) => ({ const: p.id, title: p.name })) },
            uniqueItems: true,
          },
        },
        additionalProperties: false,
      },
      execute(args = {}) {
        const next = { ...config, packages: [...config.packages] };
        if (args.trim !== undefined) {
          if (!car.trims.some((t) => t.name === args.trim)) throw new Error(`Unknown trim ${JSON.stringify(args.trim)}; choose ${car.trims.map((t) => t.name).join(', ')}.`);
          next.trim = args.trim;
        }
        if (args.color !== undefined) {
          if (!car.colors.includes(args.color)) throw new Error(`This car does not come in ${args.color}; choose ${car.colors.join(', ')}.`);
          next.color = args.color;
        }
        if (args.packages !== undefined) {
          const bad = args.packages.filter((p) => !car.packages.some((x) => x.id === p));
          if (bad.length) throw new Error(`Unknown package(s) ${bad.join(', ')}; choose from ${car.packages.map((p) => p.id).join(', ')}.`);
          next.packages = [...new Set(args.packages)];
        }
        config = next;
        writeForm();
        const b = update();
        toast(`Assistant: configured — total ${money(b.total)}`);
        flash(document.getElementById('summary'));
        return { content: [{ type: 'text', text: `Configured: ${breakdownText(car, b)}` }], structuredContent: b };
      },
    },
    {
      name: 'get_price_summary',
      description: "Return the configured car's price breakdown.",
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      annotations: { readOnlyHint: true },
      execute() {
        const b = priceBreakdown(car, config);
        flash(document.getElementById('summary'));
        return { content: [{ type: 'text', text: breakdownText(car, b) }], structuredContent: b };
      },
    },
    {
      name: 'go_to_test_drive',
      description: 'Go to the test-drive booking page for this car.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      execute() {
        toast('Assistant: opening the test-drive booking');
        navigateSoon(`test-drive.html?id=${car.id}`);
        return navigating(`Opening the test-drive booking page for the ${carTitle(car)}; its form tools will be available once it has loaded.`);
      },
    },
    {
      name: 'go_to_financing',
      description: 'Go to the financing calculator for this configuration.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      execute() {
        const b = priceBreakdown(car, config);
        toast('Assistant: opening the financing calculator');
        navigateSoon(financeURL(b.total));
        return navigating(`Opening the financing calculator for the ${carTitle(car)} at ${money(b.total)}; its tools will be available once it has loaded.`);
      },
    },
    backToInventory,
  ]);
}
