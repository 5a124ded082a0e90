import { readFileSync } from 'node:fs';
import { Page } from 'playwright-core';
import { depreciate } from './http';
import { ServerProcess } from './server-process';
import type { CalculateDepreciationDto } from '../depreciation/dto/calculate-depreciation.dto';
import type { DepreciationResponseDto } from '../depreciation/dto/depreciation-response.dto';

/** Driving the calculator page (public/) from a test, and what it should show. */
export const YEAR = new Date().getUTCFullYear();
export const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const percentFormat = new Intl.NumberFormat('en-US', {
  style: 'percent',
  maximumFractionDigits: 2,
});
export const percent = (value: number) => percentFormat.format(value / 100);

/** The success body: the service's own DTO is its type. */
export type Answer = DepreciationResponseDto;
/** The little of the DOM these tests touch inside the page (the project compiles without lib.dom). */
interface CanvasLike {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(...box: number[]): { data: ArrayLike<number> } } | null;
}
interface RowLike {
  cells: ArrayLike<{ textContent: string | null }>;
}
export interface ChartGlobal {
  Chart: {
    getChart(id: string):
      | {
          data: { datasets: { label: string; data: (number | null)[]; borderDash?: number[] }[] };
          options: { plugins: { legend: { display: boolean } } };
        }
      | undefined;
  };
}

/** A request as the page fills its form (the request DTO is its type). */
export type Vehicle = CalculateDepreciationDto;

/** The same request the page sends, straight over HTTP. */
export async function askApi(server: ServerProcess, vehicle: Vehicle): Promise<Answer> {
  const answer = await depreciate(server.port, { body: vehicle });
  expect(answer.status).toBe(200);
  return answer.json as Answer;
}

export async function fillForm(page: Page, vehicle: Vehicle): Promise<void> {
  await page.getByLabel('Purchase year').fill(String(vehicle.purchaseYear));
  await page.getByLabel('Purchase price (USD)').fill(String(vehicle.purchasePrice));
  await page.getByLabel('Vehicle type').selectOption(vehicle.vehicleType);
  await page.getByLabel(/Current mileage/).fill(String(vehicle.currentMileage ?? ''));
  await page.getByLabel(/Years to project/).selectOption(String(vehicle.projectionYears ?? 0));
}

/** Fills and submits the form, and resolves with the API's answer to the page. */
export async function calculate(page: Page, vehicle: Vehicle) {
  await fillForm(page, vehicle);
  const answer = page.waitForResponse((response) => response.url().endsWith('/api/depreciate'));
  await page.getByRole('button', { name: 'Calculate' }).click();
  const response = await answer;
  await page.locator('button[aria-disabled="false"]').waitFor();
  return response;
}

/** Pixels of the chart's canvas that are not transparent. */
export const drawnPixels = (page: Page) =>
  page.locator('#chart').evaluate((canvas: CanvasLike) => {
    const context = canvas.getContext('2d');
    if (!context) return 0;
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let drawn = 0;
    for (let alpha = 3; alpha < data.length; alpha += 4) if (data[alpha] !== 0) drawn++;
    return drawn;
  });

/** axe-core's browser build, evaluated in the page (as DevTools does, so the page's CSP stays on). */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The accessibility rules axe-core finds broken on the page as it is now: rule ids and targets. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const { passed, violations } = await page.evaluate(async () => {
    type Rule = { id: string; nodes: { target: string[] }[] };
    const { axe } = globalThis as unknown as {
      axe: { run(): Promise<{ passes: Rule[]; violations: Rule[] }> };
    };
    const results = await axe.run();
    return {
      passed: results.passes.length,
      violations: results.violations.map(
        ({ id, nodes }) => `${id}: ${nodes.map((node) => node.target.join(' ')).join(', ')}`,
      ),
    };
  });
  // A run that checked nothing (axe not loaded, a blank page) must not pass as "no violation".
  if (passed === 0) throw new Error('axe-core passed no rule: it did not check the page');
  return violations;
}

export const focusedId = (page: Page) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document
        .activeElement?.id ?? '',
  );

export const tableRows = (page: Page) =>
  page
    .locator('#breakdown tbody tr')
    .evaluateAll((rows: RowLike[]) =>
      rows.map((row) => Array.from(row.cells, (cell) => cell.textContent?.trim())),
    );

/** A table row as the page should show an entry (en-US); a projected year says so in words. */
export const expectedRow = (
  entry: Answer['data']['yearlyBreakdown'][number],
  projected = false,
) => [
  projected ? `${entry.year} (projected)` : String(entry.year),
  String(entry.age),
  money.format(entry.value),
  money.format(entry.depreciation),
  percent(entry.depreciationPercent),
];
