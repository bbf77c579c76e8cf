// Produces docs/screenshots/widget-desktop.png (1280x800, the panel docked beside the page) and
// widget-phone.png (390x844): the widget open on the inventory page after a short scripted
// conversation; and widget-confirm.png: the confirmation card of the financing page's
// apply_for_financing tool (its title and arguments as a visitor reads them).
// Run: node e2e/browser/screenshots.mjs [output-dir]
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { ROOT, startStack, newPage, ask, waitIdle, waitConnected, W } from './harness.mjs';
import { lastUserText, toolResultsSinceUser } from './fake-openai.mjs';

const ANSWER = [
  'I found **3 SUVs under $35,000**:',
  '',
  '1. **2023 Toyota RAV4** (hybrid) — $31,990',
  '2. **2022 Honda CR-V** — $29,450',
  '3. **2023 Kia Sportage** — $27,800',
  '',
  'The RAV4 is the cheapest to run. Shall I open it or compare the three?',
].join('\n');

function script(body) {
  if (/apply/i.test(lastUserText(body)) && toolResultsSinceUser(body).length === 0) {
    return { toolCalls: [{ name: 'apply_for_financing', arguments: { fullName: 'Ada Lovelace', email: 'ada@example.com', annualIncome: 85000 } }] };
  }
  if (/apply/i.test(lastUserText(body))) return { text: 'Your application is in: we reply within one business day.' };
  if (/SUVs under/i.test(lastUserText(body)) && toolResultsSinceUser(body).length === 0) {
    return { toolCalls: [{ name: 'search_cars', arguments: { bodyType: 'suv', maxPrice: 35000 } }] };
  }
  return { text: ANSWER, chunkSize: 12, delayMs: 2 };
}

const outDir = path.resolve(process.argv[2] ?? path.join(ROOT, 'docs', 'screenshots'));
await mkdir(outDir, { recursive: true });
const stack = await startStack({ script });
try {
  const shots = [
    { file: 'widget-desktop.png', viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, isMobile: false },
    { file: 'widget-phone.png', viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true },
  ];
  for (const s of shots) {
    const context = await stack.browser.newContext({ viewport: s.viewport, deviceScaleFactor: s.deviceScaleFactor, isMobile: s.isMobile, hasTouch: s.isMobile, reducedMotion: 'reduce' });
    try {
      const { page } = await newPage(context);
      await page.goto(stack.server.url + '/');
      await waitConnected(page);
      await page.locator('#grid .card').first().waitFor();
      await ask(page, 'Show me SUVs under $35,000');
      await page.locator(W.text).filter({ hasText: 'Shall I open it' }).waitFor();
      await waitIdle(page);
      // Let the page's "the assistant did this" toast go away before the picture.
      await page.locator('#toast.show').waitFor({ state: 'detached', timeout: 10000 }).catch(() => {});
      await page.locator(W.input).fill('Compare the RAV4 and the CR-V');
      await page.locator(W.input).blur();
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const file = path.join(outDir, s.file);
      await page.screenshot({ path: file });
      console.log(`wrote ${path.relative(process.cwd(), file)}`);
    } finally {
      await context.close();
    }
  }
  // The confirmation card, cropped to the panel.
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, reducedMotion: 'reduce' });
  try {
    const { page } = await newPage(context);
    await page.goto(stack.server.url + '/financing.html');
    await waitConnected(page);
    await ask(page, 'Please apply for financing for me: Ada Lovelace, ada@example.com, income 85,000');
    await page.locator(W.confirm).waitFor();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const file = path.join(outDir, 'widget-confirm.png');
    await page.locator(W.panel).screenshot({ path: file });
    console.log(`wrote ${path.relative(process.cwd(), file)}`);
    await page.locator(W.confirmCancel).click();
    await waitIdle(page);
  } finally {
    await context.close();
  }
} finally {
  await stack.close();
}
