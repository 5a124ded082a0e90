import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, BrowserContextOptions, chromium, Page } from 'playwright-core';
import { ServerProcess, startServer } from '../src/testing/server-process';
import { waitFor } from '../src/testing/processes';
import {
  askApi,
  axeViolations,
  calculate,
  ChartGlobal,
  drawnPixels,
  expectedRow,
  focusedId,
  money,
  percent,
  tableRows,
  Vehicle,
  YEAR,
} from '../src/testing/calculator-page';

/**
 * The calculator page in a real headless Chromium (Debian's), against the built server started as
 * a process. Screenshots go to test-artifacts/ (git-ignored).
 */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ARTIFACTS = join(__dirname, '..', 'test-artifacts');

const hasChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
// Locally a missing browser skips this file with one line; in CI it fails (beforeAll throws).
if (!hasChromium && !inCi) {
  process.stdout.write('skipped: page e2e needs chromium (apt-get install chromium)\n');
}
jest.setTimeout(60_000);
const describeWhen = (condition: boolean) => (condition ? describe : describe.skip);

describeWhen(hasChromium || inCi)('The calculator page in Chromium', () => {
  let browser: Browser;
  let server: ServerProcess;
  let tiny: ServerProcess;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`page e2e needs ${CHROMIUM} (apt-get install chromium)`);
    mkdirSync(ARTIFACTS, { recursive: true });
    [server, tiny] = await Promise.all([
      startServer({ RATE_LIMIT_PER_DAY: '50' }),
      startServer({ RATE_LIMIT_PER_DAY: '3' }),
    ]);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([server?.stop(), tiny?.stop()]);
  });

  /**
   * A fresh page on `on`, under the CSP the server sends with it (its value is pinned by
   * security.e2e-spec.ts). `problems` collects page errors and console errors (CSP violations
   * among them); a 4xx the page asked for is logged by Chromium as "Failed to load resource",
   * which a test expecting one leaves out.
   */
  async function openPage(
    on: ServerProcess,
    options: BrowserContextOptions = {},
    /** Runs before the page loads (routes to set up). */
    prepare?: (page: Page) => Promise<void>,
  ) {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'America/New_York',
      ...options,
    });
    contexts.push(context);
    const page = await context.newPage();
    await prepare?.(page);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    const apiCalls: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/depreciate')) apiCalls.push(request.method());
    });
    const document = await page.goto(`${on.url}/`);
    // Nothing stands between the server and the browser: the page runs under the server's CSP.
    expect(document?.headers()['content-security-policy']).toContain("script-src 'self'");
    return { page, problems, apiCalls };
  }

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });

  const suv: Vehicle = {
    purchaseYear: 2018,
    purchasePrice: 32000,
    vehicleType: 'suv',
    currentMileage: 60000,
  };

  it('draws the chart, and shows the API answer as totals and table, and the requests left', async () => {
    const { page, problems } = await openPage(server);
    const response = await calculate(page, suv);
    expect(response.status()).toBe(200);
    const remaining = Number(response.headers()['x-ratelimit-remaining']);

    const expected = await askApi(server, suv);
    const { data } = expected;
    expect(await tableRows(page)).toEqual(data.yearlyBreakdown.map((entry) => expectedRow(entry)));
    expect(data.yearlyBreakdown).toHaveLength(YEAR - 2018 + 1);
    await expect(page.locator('#currentValue').textContent()).resolves.toBe(
      money.format(data.currentValue),
    );
    await expect(page.locator('#totalDepreciation').textContent()).resolves.toBe(
      money.format(data.totalDepreciation),
    );
    await expect(page.locator('#totalPercent').textContent()).resolves.toBe(
      `(${percent(data.totalDepreciationPercent)})`,
    );
    await expect(page.locator('#monthlyDepreciation').textContent()).resolves.toBe(
      money.format(data.monthlyDepreciation),
    );

    await expect(page.locator('#quota').textContent()).resolves.toBe(
      `${remaining} of 50 requests left today.`,
    );
    await expect(page.locator('#status').textContent()).resolves.toContain(
      `Estimated value now: ${money.format(data.currentValue)}`,
    );

    // Chart.js animates the line in; wait for it rather than for a fixed time.
    await waitFor('the chart to be drawn', async () => (await drawnPixels(page)) > 5_000);
    expect(await drawnPixels(page)).toBeGreaterThan(5_000);
    const plotted = await page.evaluate(
      () => (globalThis as unknown as ChartGlobal).Chart.getChart('chart')?.data.datasets[0].data,
    );
    expect(plotted).toEqual(data.yearlyBreakdown.map((entry) => entry.value));
    await expect(page.locator('#chart').getAttribute('aria-label')).resolves.toContain(
      `to ${money.format(data.currentValue)} in ${YEAR}`,
    );

    await page.screenshot({ path: join(ARTIFACTS, 'calculator-desktop.png'), fullPage: true });
    expect(problems).toEqual([]);
  });

  it('projects the coming years: a dashed line with a legend, rows marked in words, and says so', async () => {
    // The browser's clock two years behind: the projected years come from the answer, not from it.
    const { page, problems } = await openPage(server, { reducedMotion: 'reduce' }, (loading) =>
      loading.clock.setFixedTime(new Date(Date.UTC(YEAR - 2, 5, 1, 12))),
    );
    const vehicle = { ...suv, projectionYears: 5 };
    const response = await calculate(page, vehicle);
    expect(response.request().postDataJSON()).toEqual(vehicle);
    const { data } = await askApi(server, vehicle);
    const projection = data.projection ?? [];
    expect(projection.map((entry) => entry.year)).toEqual([1, 2, 3, 4, 5].map((k) => YEAR + k));
    expect(await tableRows(page)).toEqual([
      ...data.yearlyBreakdown.map((entry) => expectedRow(entry)),
      ...projection.map((entry) => expectedRow(entry, true)),
    ]);
    const end = projection[4];
    await expect(page.locator('#status').textContent()).resolves.toContain(
      `If it keeps its yearly mileage, it will be worth about ${money.format(end.value)} in ${end.year}.`,
    );
    await expect(page.locator('#chart').getAttribute('aria-label')).resolves.toContain(
      `to ${money.format(data.currentValue)} in ${YEAR}, then a dashed line projected to ` +
        `${money.format(end.value)} in ${end.year}.`,
    );
    await expect(page.locator('#chart-caption').textContent()).resolves.toBe(
      'Value by year, with 5 years projected (dashed)',
    );
    await expect(page.locator('#breakdown-caption').textContent()).resolves.toBe(
      'Year-by-year breakdown, then 5 years projected',
    );
    await waitFor('the chart to be drawn', async () => (await drawnPixels(page)) > 5_000);
    const chart = () =>
      page.evaluate(() => {
        const drawn = (globalThis as unknown as ChartGlobal).Chart.getChart('chart');
        const [owned, ahead] = drawn?.data.datasets ?? [];
        return { owned, ahead, legend: drawn?.options.plugins.legend.display };
      });
    const nulls = (count: number) => Array.from({ length: count }, () => null);
    const owned = data.yearlyBreakdown.map((entry) => entry.value);
    expect(await chart()).toEqual({
      owned: expect.objectContaining({ label: 'Value (USD)', data: [...owned, ...nulls(5)] }),
      ahead: expect.objectContaining({
        label: 'Projected value (USD)',
        borderDash: [6, 5],
        data: [...nulls(owned.length - 1), data.currentValue, ...projection.map((e) => e.value)],
      }),
      legend: true,
    });
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'calculator-projection.png'), fullPage: true });

    // Back to no projection: the page shows exactly what it showed before the feature.
    await calculate(page, suv);
    expect(await tableRows(page)).toEqual(data.yearlyBreakdown.map((entry) => expectedRow(entry)));
    expect((await chart()).legend).toBe(false);
    expect((await chart()).ahead.data).toEqual([]);
    await expect(page.locator('#chart-caption').textContent()).resolves.toBe('Value by year');
    await expect(page.locator('#status').textContent()).resolves.not.toContain('keeps its');
    expect(problems).toEqual([]);
  });

  it("calls the API through the TypeScript client's module, and says when it cannot reach it", async () => {
    // The client's module as served, wrapped by one that notes each call of depreciate() and its
    // result: the page imports the wrapper in its place, and the wrapper the module itself.
    const wrapper = [
      "import * as client from '/assets/depreciation-client.js?unwrapped';",
      "export * from '/assets/depreciation-client.js?unwrapped';",
      'export async function depreciate(request, options) {',
      '  const result = await client.depreciate(request, options);',
      '  (globalThis.clientCalls ??= []).push({ request, kind: result.kind, status: result.status,',
      '    remaining: result.rateLimit?.remaining });',
      '  return result;',
      '}',
    ].join('\n');
    const { page, problems } = await openPage(server, {}, async (loading) => {
      await loading.route(
        (url) => url.pathname === '/assets/depreciation-client.js' && url.search === '',
        (route) => route.fulfill({ contentType: 'text/javascript', body: wrapper }),
      );
    });
    const clientCalls = () =>
      page.evaluate(() => (globalThis as unknown as { clientCalls?: unknown[] }).clientCalls);

    const response = await calculate(page, suv);
    expect(response.status()).toBe(200);
    const remaining = Number(response.headers()['x-ratelimit-remaining']);
    expect(await clientCalls()).toEqual([{ request: suv, kind: 'ok', status: 200, remaining }]);
    await expect(page.locator('#remaining').textContent()).resolves.toBe(String(remaining));

    // No answer at all: the client resolves to a network failure, which the page says plainly.
    await page.route('**/api/depreciate', (route) => route.abort('connectionrefused'));
    await page.getByRole('button', { name: 'Calculate' }).click();
    await page.locator('#problem:not([hidden])').waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      'The service could not be reached.',
    );
    expect((await clientCalls())?.[1]).toEqual({ request: suv, kind: 'network', status: 0 });
    await expect(page.locator('#output').isHidden()).resolves.toBe(true);
    expect(problems.filter((text) => !text.startsWith('Failed to load resource'))).toEqual([]);
  });

  it('says what is wrong with a field as the user types, and sends nothing until it is right', async () => {
    const { page, apiCalls } = await openPage(server);
    const year = page.getByLabel('Purchase year');
    const yearError = page.locator('#purchaseYear-error');
    await expect(year.getAttribute('aria-describedby')).resolves.toContain('purchaseYear-error');

    await year.pressSequentially('189');
    await expect(yearError.isHidden()).resolves.toBe(true); // still typing: no error yet
    await year.pressSequentially('9');
    await expect(yearError.textContent()).resolves.toBe(`The year must be from 1900 to ${YEAR}.`);
    await expect(year.getAttribute('aria-invalid')).resolves.toBe('true');

    await page.getByLabel('Purchase price (USD)').fill('0');
    await expect(page.locator('#purchasePrice-error').textContent()).resolves.toBe(
      'The price must be at least $0.01.',
    );
    await page.getByLabel('Purchase price (USD)').fill('25,000');
    await expect(page.locator('#purchasePrice-error').isHidden()).resolves.toBe(true);
    await page.getByLabel(/Current mileage/).fill('-5');
    await expect(page.locator('#currentMileage-error').textContent()).resolves.toBe(
      'The mileage cannot be negative.',
    );
    await page.getByLabel(/Current mileage/).fill('');
    await page.getByLabel('Vehicle type').selectOption('truck');

    await page.getByRole('button', { name: 'Calculate' }).click();
    await expect(focusedId(page)).resolves.toBe('purchaseYear');
    await expect(yearError.isVisible()).resolves.toBe(true);
    expect(apiCalls).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'calculator-invalid.png'), fullPage: true });

    await year.fill('2.5');
    await expect(yearError.textContent()).resolves.toBe(
      'Enter the year as a whole number, like 2020.',
    );
    await year.fill(String(YEAR));
    await expect(yearError.isHidden()).resolves.toBe(true);
    await expect(year.getAttribute('aria-invalid')).resolves.toBe('false');
  });

  it("shows the API's 400 message plainly (a browser whose clock is already in next year)", async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    contexts.push(context);
    const page = await context.newPage();
    await page.clock.setFixedTime(new Date(Date.UTC(YEAR + 1, 5, 1, 12)));
    await page.goto(`${server.url}/`);
    const response = await calculate(page, { ...suv, purchaseYear: YEAR + 1 });
    expect(response.status()).toBe(400);
    const alert = page.getByRole('alert');
    await expect(alert.textContent()).resolves.toContain('Invalid input parameters');
    await expect(page.locator('#output').isHidden()).resolves.toBe(true);
  });

  it('past the daily limit, shows the 429 message and when the limit resets', async () => {
    const timeZone = 'Asia/Tokyo';
    const { page, problems } = await openPage(tiny, { timezoneId: timeZone });
    for (const left of [2, 1, 0]) {
      const response = await calculate(page, suv);
      expect(response.status()).toBe(200);
      await expect(page.locator('#remaining').textContent()).resolves.toBe(String(left));
    }
    await expect(page.locator('#quota').textContent()).resolves.toMatch(
      /^0 of 3 requests left today; resets at \d{1,2}:\d\d( [AP]M)?( tomorrow)? your time \(in (\d+h )?\d+m\)\.$/,
    );

    const before = Date.now();
    const refused = await calculate(page, suv);
    const after = Date.now();
    expect(refused.status()).toBe(429);
    const seconds = Number(refused.headers()['retry-after']);
    expect(seconds).toBeGreaterThan(0);
    const at = (now: number) =>
      new Date(now + seconds * 1000).toLocaleTimeString('en-US', {
        hour: 'numeric',
        minute: '2-digit',
        timeZone,
      });
    const minutes = Math.ceil(seconds / 60);
    const wait = minutes >= 60 ? `${Math.floor(minutes / 60)}h ${minutes % 60}m` : `${minutes}m`;

    const alert = (await page.getByRole('alert').textContent()) ?? '';
    expect(alert).toContain('Rate limit exceeded. Maximum 3 requests per 24 hours.');
    expect(alert).toContain(`(in ${wait})`);
    expect([at(before), at(after)].some((time) => alert.includes(`resets at ${time}`))).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'calculator-limit.png'), fullPage: true });
    expect(problems.filter((text) => !text.startsWith('Failed to load resource'))).toEqual([]);
  });

  it('works from the keyboard alone, and loading the page again is not counted', async () => {
    const { page } = await openPage(server);
    const focused = () => focusedId(page);
    for (let presses = 0; presses < 5 && (await focused()) !== 'purchaseYear'; presses++) {
      await page.keyboard.press('Tab');
    }
    expect(await focused()).toBe('purchaseYear');
    await page.keyboard.type('2021');
    await page.keyboard.press('Tab');
    await page.keyboard.type('41000');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('vehicleType');
    await page.keyboard.press('e'); // the first type starting with "e": economy
    await page.keyboard.press('e'); // then the next: ev
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('currentMileage');
    const first = page.waitForResponse((response) => response.url().endsWith('/api/depreciate'));
    await page.keyboard.press('Enter');
    const remaining = Number((await first).headers()['x-ratelimit-remaining']);
    await page.locator('#output:not([hidden])').waitFor();
    expect(await page.locator('#status').textContent()).toContain('Estimated value now');

    await page.reload();
    await page.reload();
    const again = await calculate(page, { ...suv, vehicleType: 'ev', purchaseYear: 2021 });
    expect(Number(again.headers()['x-ratelimit-remaining'])).toBe(remaining - 1);
  });

  it('fits a phone screen, a 10-year projection shown, with no accessibility violation', async () => {
    const { page, problems } = await openPage(server, {
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    await calculate(page, { ...suv, projectionYears: 10 });
    await waitFor('the chart to be drawn', async () => (await drawnPixels(page)) > 5_000);
    expect(await axeViolations(page)).toEqual([]);
    const widths = await page
      .locator('html')
      .evaluate((html: { scrollWidth: number; clientWidth: number }) => ({
        page: html.scrollWidth,
        window: html.clientWidth,
      }));
    expect(widths.page).toBeLessThanOrEqual(widths.window);
    await page.screenshot({ path: join(ARTIFACTS, 'calculator-phone.png'), fullPage: true });
    expect(problems).toEqual([]);
  });
});
