/*
 * The calculator page: checks the form as the user types (the rules of docs/contract.md), calls
 * POST /api/depreciate through the TypeScript client (clients/typescript, whose build the server
 * serves as /assets/depreciation-client.js), and shows the totals, a chart, the breakdown and the
 * requests left today. An ES module with no build step of its own; no inline code or styles, so it
 * runs under a strict CSP.
 */
import { depreciate } from './depreciation-client.js';

const MIN_YEAR = 1900;
const MAX_PRICE = 10000000;

const $ = (id) => document.getElementById(id);
const form = $('calculator');
const button = form.querySelector('button[type="submit"]');
const problem = $('problem');
const status = $('status');
const quota = $('quota');
const output = $('output');
const canvas = $('chart');

const money = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' });
const compactMoney = new Intl.NumberFormat(undefined, {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
  maximumFractionDigits: 1,
});
const percentFormat = new Intl.NumberFormat(undefined, {
  style: 'percent',
  maximumFractionDigits: 2,
});
const percent = (value) => percentFormat.format(value / 100);
const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

/** "Current year" is the UTC year, as the API counts it. */
const currentYear = () => new Date().getUTCFullYear();

// ---- Reading and checking the form --------------------------------------------------------

/** A number typed by a person: spaces and thousands separators allowed ("25,000"). */
function parseNumber(text) {
  const compact = text
    .trim()
    .replace(/\s/g, '')
    .replace(/,(?=\d{3}(?!\d))/g, '');
  if (compact === '') return { empty: true, value: undefined };
  const valid = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(compact);
  return { empty: false, value: valid ? Number(compact) : NaN };
}

/** Each rule answers an error message, or '' when the value is fine. */
const rules = {
  purchaseYear(text) {
    const { empty, value } = parseNumber(text);
    if (empty) return 'Enter the purchase year.';
    if (!Number.isInteger(value)) return 'Enter the year as a whole number, like 2020.';
    if (value < MIN_YEAR || value > currentYear()) {
      return `The year must be from ${MIN_YEAR} to ${currentYear()}.`;
    }
    return '';
  },
  purchasePrice(text) {
    const { empty, value } = parseNumber(text);
    if (empty) return 'Enter the purchase price.';
    if (Number.isNaN(value)) return 'Enter the price as a number, like 25000.';
    if (value < 0.01) return 'The price must be at least $0.01.';
    if (value > MAX_PRICE) return 'The price can be at most $10,000,000.';
    return '';
  },
  vehicleType(text) {
    return text === '' ? 'Choose a vehicle type.' : '';
  },
  currentMileage(text) {
    const { empty, value } = parseNumber(text);
    if (empty) return '';
    if (Number.isNaN(value)) return 'Enter the mileage as a number, like 50000, or leave it empty.';
    if (value < 0) return 'The mileage cannot be negative.';
    return '';
  },
};
const fields = Object.keys(rules);

function showFieldError(name, message) {
  const input = form.elements[name];
  const error = $(`${name}-error`);
  error.textContent = message;
  error.hidden = message === '';
  input.setAttribute('aria-invalid', String(message !== ''));
}

/**
 * Checks one field. While typing, a year of fewer than four digits is not called wrong yet:
 * the person is still typing it.
 */
function check(name, typing) {
  const text = form.elements[name].value;
  const message = rules[name](text);
  const unfinishedYear = typing && name === 'purchaseYear' && /^\d{1,3}$/.test(text.trim());
  showFieldError(name, unfinishedYear ? '' : message);
  return message;
}

for (const name of fields) {
  const input = form.elements[name];
  input.addEventListener(input.tagName === 'SELECT' ? 'change' : 'input', () => check(name, true));
  input.addEventListener('blur', () => {
    if (input.value !== '' || input.getAttribute('aria-invalid') === 'true') check(name, false);
  });
}

/** The request body (docs/contract.md, "Request"), or null after marking the fields that are wrong. */
function readForm() {
  const wrong = fields.filter((name) => check(name, false) !== '');
  if (wrong.length > 0) {
    form.elements[wrong[0]].focus();
    return null;
  }
  const body = {
    purchaseYear: parseNumber(form.elements.purchaseYear.value).value,
    purchasePrice: parseNumber(form.elements.purchasePrice.value).value,
    vehicleType: form.elements.vehicleType.value,
  };
  const mileage = parseNumber(form.elements.currentMileage.value);
  if (!mileage.empty) body.currentMileage = mileage.value;
  // 0 is sent as no field at all: the answer is then exactly the one without a projection.
  const ahead = Number(form.elements.projectionYears.value);
  if (ahead > 0) body.projectionYears = ahead;
  return body;
}

// ---- The daily limit -----------------------------------------------------------------------

/** The requests left, the daily budget and the seconds until it resets, as the client read them. */
function readQuota({ rateLimit, retryAfterSeconds }) {
  return {
    remaining: rateLimit?.remaining ?? null,
    limit: rateLimit?.limit ?? null,
    reset: retryAfterSeconds ?? rateLimit?.resetSeconds ?? null,
  };
}

/** When the limit resets, `seconds` from now: "19:00 (in 4h 12m)" in the reader's time. */
function describeReset(seconds) {
  const now = new Date();
  const at = new Date(now.getTime() + seconds * 1000);
  let time = at.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
  if (at.toDateString() !== now.toDateString()) time += ' tomorrow';
  const minutes = Math.ceil(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const wait = hours > 0 ? `${hours}h ${minutes % 60}m` : `${minutes}m`;
  return `${time} your time (in ${wait})`;
}

function showQuota({ remaining, limit, reset }) {
  if (remaining === null) return;
  quota.replaceChildren();
  const count = document.createElement('strong');
  count.id = 'remaining';
  count.textContent = integer.format(remaining);
  const of = limit === null ? ' ' : ` of ${integer.format(limit)} `;
  quota.append(count, `${of}request${(limit ?? remaining) === 1 ? '' : 's'} left today`);
  if (remaining === 0 && reset !== null) quota.append(`; resets at ${describeReset(reset)}`);
  quota.append('.');
}

// ---- Showing answers -----------------------------------------------------------------------

function showProblem(title, detail) {
  const heading = document.createElement('p');
  heading.className = 'problem-title';
  heading.textContent = title;
  const text = document.createElement('p');
  text.textContent = detail;
  problem.replaceChildren(heading, text);
  problem.hidden = false;
}

/** The title and detail of an answer that is not a valuation (`kind` error or unexpected). */
function describeFailure(result, quotaNow) {
  const { body, status } = result;
  const message = body && typeof body.message === 'string' ? body.message : `Error ${status}`;
  if (result.kind === 'error' && status === 429) {
    const when =
      quotaNow.reset === null ? 'at midnight UTC' : `at ${describeReset(quotaNow.reset)}`;
    return [message, `The daily limit resets ${when}. You can calculate again then.`];
  }
  if (result.kind === 'error' && status === 400) {
    return [message, 'The service refused these values. Check each field and try again.'];
  }
  return [message, 'The calculation failed. Please try again in a moment.'];
}

function cell(tag, text, scope) {
  const element = document.createElement(tag);
  element.textContent = text;
  if (scope) element.scope = scope;
  return element;
}

/** The year's header cell; a projected year says so in words, not by its colour alone. */
function yearCell(entry, projected) {
  const header = cell('th', String(entry.year), 'row');
  if (projected) {
    const mark = document.createElement('span');
    mark.className = 'tag';
    mark.textContent = ' (projected)';
    header.append(mark);
  }
  return header;
}

function showTable(entries, projection) {
  const rows = [...entries, ...projection].map((entry, index) => {
    const projected = index >= entries.length;
    const row = document.createElement('tr');
    if (projected) row.className = 'projected';
    row.append(
      yearCell(entry, projected),
      cell('td', integer.format(entry.age)),
      cell('td', money.format(entry.value)),
      cell('td', money.format(entry.depreciation)),
      cell('td', percent(entry.depreciationPercent)),
    );
    return row;
  });
  $('breakdown').tBodies[0].replaceChildren(...rows);
  $('breakdown-caption').textContent =
    projection.length === 0
      ? 'Year-by-year breakdown'
      : `Year-by-year breakdown, then ${yearsText(projection.length)} projected`;
}

const yearsText = (count) => (count === 1 ? '1 year' : `${count} years`);

let chart = null;

function cssColor(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/** The chart's text alternative and caption: where the line starts, ends and what is projected. */
function describeChart(entries, projection) {
  const first = entries[0];
  const last = entries[entries.length - 1];
  const end = projection[projection.length - 1];
  const ahead = end
    ? `, then a dashed line projected to ${money.format(end.value)} in ${end.year}`
    : '';
  canvas.setAttribute(
    'aria-label',
    `Line chart of the value by year: from ${money.format(first.value)} in ${first.year} ` +
      `to ${money.format(last.value)} in ${last.year}${ahead}. The table below lists every year.`,
  );
  $('chart-caption').textContent = end
    ? `Value by year, with ${yearsText(projection.length)} projected (dashed)`
    : 'Value by year';
}

/**
 * The two lines: the years owned, and the projection (empty without one), which starts at the
 * current year's point so the dashed line continues the solid one.
 */
function chartSeries(entries, projection) {
  const owned = entries.map((entry) => entry.value);
  const gap = entries.slice(0, -1).map(() => null);
  return {
    labels: [...entries, ...projection].map((entry) => String(entry.year)),
    values: projection.length === 0 ? owned : [...owned, ...projection.map(() => null)],
    projected:
      projection.length === 0
        ? []
        : [...gap, owned[owned.length - 1], ...projection.map((entry) => entry.value)],
  };
}

function showChart(entries, projection) {
  describeChart(entries, projection);
  if (typeof window.Chart !== 'function') return; // The numbers still show without the chart.
  const series = chartSeries(entries, projection);
  if (!chart) {
    chart = new window.Chart(canvas, chartConfig(series));
    return;
  }
  chart.data.labels = series.labels;
  chart.data.datasets[0].data = series.values;
  chart.data.datasets[1].data = series.projected;
  chart.options.plugins.legend.display = series.projected.length > 0;
  chart.update();
}

/** The projected line: dashed, hollow points, no fill, so it reads as different without colour. */
function projectedDataset(data, line) {
  return {
    label: 'Projected value (USD)',
    data,
    borderColor: line,
    borderDash: [6, 5],
    pointBackgroundColor: cssColor('--surface'),
    pointBorderColor: line,
    fill: false,
    tension: 0,
    pointRadius: 3,
    spanGaps: false,
  };
}

function chartConfig({ labels, values, projected }) {
  const line = cssColor('--accent');
  const grid = cssColor('--border');
  const text = cssColor('--muted');
  const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  return {
    type: 'line',
    data: {
      labels,
      datasets: [
        {
          label: 'Value (USD)',
          data: values,
          borderColor: line,
          backgroundColor: cssColor('--accent-soft'),
          pointBackgroundColor: line,
          fill: true,
          tension: 0,
          pointRadius: values.length > 40 ? 0 : 3,
        },
        projectedDataset(projected, line),
      ],
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: still ? false : { duration: 400 },
      interaction: { mode: 'index', intersect: false },
      plugins: {
        legend: {
          display: projected.length > 0,
          labels: {
            color: text,
            filter: (item, data) => data.datasets[item.datasetIndex].data.length > 0,
          },
        },
        tooltip: {
          callbacks: { label: (item) => ` ${item.dataset.label}: ${money.format(item.parsed.y)}` },
        },
      },
      scales: {
        x: { ticks: { color: text, autoSkipPadding: 12 }, grid: { display: false } },
        y: {
          beginAtZero: true,
          ticks: { color: text, callback: (value) => compactMoney.format(value) },
          grid: { color: grid },
        },
      },
    },
  };
}

function showResult(result) {
  const { data, meta } = result;
  const entries = data.yearlyBreakdown;
  const projection = data.projection ?? [];
  $('currentValue').textContent = money.format(data.currentValue);
  $('totalDepreciation').textContent = money.format(data.totalDepreciation);
  $('totalPercent').textContent = `(${percent(data.totalDepreciationPercent)})`;
  $('monthlyDepreciation').textContent = money.format(data.monthlyDepreciation);
  output.hidden = false;
  showTable(entries, projection);
  showChart(entries, projection);
  const end = projection[projection.length - 1];
  const ahead = end
    ? ` If it keeps its yearly mileage, it will be worth about ${money.format(end.value)} in ${end.year}.`
    : '';
  return (
    `Estimated value now: ${money.format(data.currentValue)}, ` +
    `${percent(data.totalDepreciationPercent)} less than the ${money.format(entries[0].value)} ` +
    `paid ${yearsText(meta.vehicleAge)} ago.${ahead}`
  );
}

// ---- Calculating ---------------------------------------------------------------------------

let busy = false;

function setBusy(value) {
  busy = value;
  button.setAttribute('aria-disabled', String(value));
  button.textContent = value ? 'Calculating…' : 'Calculate';
  output.setAttribute('aria-busy', String(value));
}

async function calculate(body) {
  setBusy(true);
  problem.hidden = true;
  try {
    // Resolves to a result for every outcome, never rejects: the page's own origin, no base URL.
    const result = await depreciate(body);
    if (result.kind === 'network' || result.kind === 'aborted') {
      output.hidden = true;
      showProblem('The service could not be reached.', 'Check your connection and try again.');
      status.textContent = '';
      return;
    }
    const quotaNow = readQuota(result);
    showQuota(quotaNow);
    const left =
      quotaNow.remaining === null
        ? ''
        : ` ${integer.format(quotaNow.remaining)} requests left today.`;
    if (result.kind === 'ok') {
      status.textContent = showResult(result.body) + left;
      return;
    }
    output.hidden = true;
    const [title, detail] = describeFailure(result, quotaNow);
    showProblem(title, detail);
    status.textContent = '';
  } finally {
    setBusy(false);
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (busy) return;
  const body = readForm();
  if (body) void calculate(body);
});

for (const element of document.querySelectorAll('.js-current-year')) {
  element.textContent = String(currentYear());
}
