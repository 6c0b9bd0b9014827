import { nice, ticks } from 'd3-array';
import { utcTicks } from 'd3-time';
import { escape } from './escape.js';
import { counted } from '@data/core';

/** A Data Package "simple" view: a line or bar chart of one table's columns. */
export interface SimpleView {
  title: string;
  type: 'line' | 'bar';
  /** The labels along the x axis. */
  group: string;
  series: string[];
}

/**
 * Where the points sit along an x axis that has an order: numbers, or moments (milliseconds
 * since 1970, UTC) for dates, times, years and year-months.
 */
export interface XAxis {
  scale: 'number' | 'time';
  /** One place per point, in the points' order (ascending). */
  at: number[];
}

export interface ChartData {
  /** One label per point. */
  labels: string[];
  /** One list of values (null where a cell is empty or not a number) per series. */
  values: (number | null)[][];
  /** The x axis, when x has an order; none for bars of categories, in the table's order. */
  x?: XAxis;
}

/** A tick of an axis: where it sits, and what it says. */
export interface Tick {
  value: number;
  label: string;
}

const WIDTH = 720;
const HEIGHT = 320;
const PAD = { left: 64, right: 24, top: 16, bottom: 40 };
/** About how many ticks each axis has: d3's ticks give between half and twice as many. */
const Y_TICKS = 5;
const X_TICKS = 6;
// Colours told apart by people with the common colour blindnesses (Okabe and Ito).
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_MS = 86_400_000;

/** Table Schema types that put their values on a number axis, and those on a time axis. */
const NUMBER_TYPES = new Set(['number', 'integer']);
const TIME_TYPES = new Set(['year', 'yearmonth', 'date', 'time', 'datetime']);

/**
 * A number as a tick says it: as many decimals as the step between ticks needs (a step of
 * 0.05 two, of 10 none), and millions and more in short (2.5M).
 */
function numberLabel(value: number, step: number, largest: number): string {
  if (largest >= 1e6)
    return new Intl.NumberFormat('en-US', {
      notation: 'compact',
      maximumFractionDigits: 2,
    }).format(value);
  const decimals = step > 0 ? Math.min(Math.max(0, Math.ceil(-Math.log10(step) - 1e-9)), 20) : 0;
  // -0 says "0".
  return (value + 0).toLocaleString('en-US', {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
}

/**
 * A number axis over [low, high]: the bounds widened to round numbers and the ticks between,
 * at steps of 1, 2 or 5 × 10^k (d3-array's `nice` and `ticks`, the algorithm of d3-scale).
 */
export function numberAxis(
  low: number,
  high: number,
  count: number,
): { domain: [number, number]; ticks: Tick[] } {
  if (low === high) [low, high] = [low - 1, high + 1];
  const domain = nice(low, high, count);
  const values = ticks(domain[0], domain[1], count);
  const step = values.length > 1 ? (values[1] ?? 0) - (values[0] ?? 0) : 1;
  const largest = Math.max(Math.abs(domain[0]), Math.abs(domain[1]));
  return {
    domain,
    ticks: values.map((value) => ({ value, label: numberLabel(value, step, largest) })),
  };
}

/** A moment's calendar parts, in UTC (the hub reads dates without a zone as UTC). */
function partsOf(value: number) {
  const date = new Date(value);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth(),
    day: date.getUTCDate(),
    clock: value - Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()),
    date,
  };
}

/** A value as the chart's description says it: four significant digits at most. */
function plain(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude >= 1e9 || magnitude < 1e-3)) return value.toExponential(1);
  return Number(value.toPrecision(4)).toLocaleString('en-US');
}

const two = (value: number) => String(value).padStart(2, '0');

function clockLabel(date: Date): string {
  const seconds = date.getUTCSeconds();
  return `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}${seconds ? `:${two(seconds)}` : ''}`;
}

/**
 * The labels of calendar ticks, said at the step they are at: years ("2021"), months
 * ("Mar 2021"), days ("3 Mar 2021"), times of one day ("14:30"), or days and times.
 */
export function calendarLabels(values: readonly number[]): string[] {
  const parts = values.map(partsOf);
  const midnight = parts.every((part) => part.clock === 0);
  if (midnight && parts.every((part) => part.day === 1 && part.month === 0))
    return parts.map((part) => String(part.year));
  if (midnight && parts.every((part) => part.day === 1))
    return parts.map((part) => `${MONTHS[part.month] ?? ''} ${String(part.year)}`);
  // Days say their year at the first tick and where it changes, as short as they can.
  if (midnight)
    return parts.map(
      (part, index) =>
        `${String(part.day)} ${MONTHS[part.month] ?? ''}${index === 0 || parts[index - 1]?.year !== part.year ? ` ${String(part.year)}` : ''}`,
    );
  const first = parts[0];
  const oneDay = parts.every(
    (part) => part.year === first?.year && part.month === first.month && part.day === first.day,
  );
  if (oneDay) return parts.map((part) => clockLabel(part.date));
  return parts.map(
    (part) => `${String(part.day)} ${MONTHS[part.month] ?? ''} ${clockLabel(part.date)}`,
  );
}

/**
 * A time axis over [low, high] (milliseconds, UTC): ticks at calendar steps (seconds to
 * years, d3-time's `utcTicks`), labelled as such.
 */
export function timeAxis(
  low: number,
  high: number,
  count: number,
): { domain: [number, number]; ticks: Tick[] } {
  if (low === high) [low, high] = [low - DAY_MS, high + DAY_MS];
  const values = utcTicks(new Date(low), new Date(high), count).map((date) => date.getTime());
  const labels = calendarLabels(values);
  return {
    domain: [low, high],
    ticks: values.map((value, index) => ({ value, label: labels[index] ?? '' })),
  };
}

/**
 * The points in the order of their x, when x has an order (a date, a time, a number): a
 * table's rows may come in any order, and a line drawn in it goes back and forth. `keys`
 * holds each point's x as a number; a point without one (an empty cell) goes last.
 */
export function inOrderOfX(data: ChartData, keys: readonly (number | undefined)[]): ChartData {
  const key = (index: number) => keys[index] ?? Infinity;
  const order = data.labels.map((_, index) => index).sort((a, b) => key(a) - key(b) || a - b);
  return {
    labels: order.map((index) => data.labels[index] ?? ''),
    values: data.values.map((series) => order.map((index) => series[index] ?? null)),
  };
}

/** A year (from year or year-month keys) as its first moment, years below 100 included. */
function yearStart(year: number, month: number): number {
  return new Date(0).setUTCFullYear(year, month, 1);
}

/**
 * The chart's data with its x axis: the points in order of x and placed by it, when x is a
 * number, a date or a time (`keys` as the core's casters read them: a date as milliseconds,
 * a year as itself, a year-month as a month count). Points whose x is empty or unread are
 * left out: they have no place on the axis. A line chart needs an x with an order (a line
 * between categories says nothing), so without one it is none (undefined); a bar chart of
 * categories keeps the table's order.
 */
export function ordered(
  type: SimpleView['type'],
  data: ChartData,
  fieldType: string | undefined,
  keys: readonly (number | undefined)[],
): ChartData | undefined {
  const scale = NUMBER_TYPES.has(fieldType ?? '')
    ? 'number'
    : TIME_TYPES.has(fieldType ?? '')
      ? 'time'
      : undefined;
  if (!scale) return type === 'bar' ? { labels: data.labels, values: data.values } : undefined;
  const place = (key: number): number =>
    fieldType === 'year'
      ? yearStart(key, 0)
      : fieldType === 'yearmonth'
        ? yearStart(Math.floor(key / 12), key % 12)
        : key;
  const places = data.labels.map((_, index) => {
    const key = keys[index];
    return key === undefined || !Number.isFinite(key) ? undefined : place(key);
  });
  const kept = places.flatMap((at, index) => (at === undefined ? [] : [index]));
  if (kept.length === 0) return undefined;
  kept.sort((a, b) => (places[a] ?? 0) - (places[b] ?? 0) || a - b);
  return {
    labels: kept.map((index) => data.labels[index] ?? ''),
    values: data.values.map((series) => kept.map((index) => series[index] ?? null)),
    x: { scale, at: kept.map((index) => places[index] ?? 0) },
  };
}

/** The bounds of the y axis: the data's, and zero for bars, which are read from zero. */
function bounds(values: (number | null)[][], fromZero: boolean): [number, number] {
  let low = fromZero ? 0 : Infinity;
  let high = fromZero ? 0 : -Infinity;
  for (const series of values)
    for (const value of series)
      if (value !== null) {
        low = Math.min(low, value);
        high = Math.max(high, value);
      }
  if (!Number.isFinite(low)) return [0, 1];
  return [low, high];
}

/** The legend's colours: classes, since the pages' security policy allows no inline style. */
export const CHART_STYLES = COLOURS.map(
  (colour, index) => `.swatch.c${String(index)} { background: ${colour}; }`,
).join('\n');

const fixed = (value: number) => value.toFixed(1);

/**
 * The chart as SVG drawn on the server: no script in the page. A line is drawn along its x
 * axis (numbers or dates, in order, with round ticks); bars stand in equal slots. It has a
 * title and a text description for screen readers, and its legend names each series.
 */
export function chartSvg(view: SimpleView, data: ChartData): string {
  const [low, high] = bounds(data.values, view.type === 'bar');
  const yAxis = numberAxis(low, high, Y_TICKS);
  const [yLow, yHigh] = yAxis.domain;
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const bottom = PAD.top + plotHeight;
  const points = data.labels.length;
  const y = (value: number) => bottom - ((value - yLow) / (yHigh - yLow)) * plotHeight;
  const grid = yAxis.ticks.map((tick) => {
    const at = fixed(y(tick.value));
    return `<line x1="${String(PAD.left)}" x2="${String(WIDTH - PAD.right)}" y1="${at}" y2="${at}" stroke="#e3e7ee"/><text x="${String(PAD.left - 6)}" y="${at}" text-anchor="end" dominant-baseline="middle">${escape(tick.label)}</text>`;
  });
  const line = view.type === 'line' && data.x !== undefined;
  let x: (index: number) => number;
  let xLabels: string[];
  const slot = plotWidth / Math.max(points, 1);
  const labelY = String(bottom + 18);
  if (line && data.x) {
    const xAxis =
      data.x.scale === 'number'
        ? numberAxis(data.x.at[0] ?? 0, data.x.at.at(-1) ?? 0, X_TICKS)
        : timeAxis(data.x.at[0] ?? 0, data.x.at.at(-1) ?? 0, X_TICKS);
    const [xLow, xHigh] = xAxis.domain;
    const along = (value: number) => PAD.left + ((value - xLow) / (xHigh - xLow)) * plotWidth;
    const at = data.x.at;
    x = (index) => along(at[index] ?? xLow);
    xLabels = xAxis.ticks.map((tick) => {
      const left = along(tick.value);
      // A label at either end of the axis ends or starts there: none leaves the chart.
      const anchor =
        left - PAD.left < 30 ? 'start' : WIDTH - PAD.right - left < 30 ? 'end' : 'middle';
      return `<line x1="${fixed(left)}" x2="${fixed(left)}" y1="${String(bottom)}" y2="${String(bottom + 5)}" stroke="#9aa3b2"/><text x="${fixed(left)}" y="${labelY}" text-anchor="${anchor}">${escape(tick.label)}</text>`;
    });
  } else {
    x = (index) => PAD.left + slot * (index + 0.5);
    const shown = [...new Set([0, Math.floor((points - 1) / 2), points - 1])].filter(
      (index) => index >= 0,
    );
    // The first label starts at its point and the last ends at its: neither leaves the chart.
    const anchor = (index: number) =>
      points > 1 && index === 0 ? 'start' : points > 1 && index === points - 1 ? 'end' : 'middle';
    xLabels = shown.map(
      (index) =>
        `<text x="${fixed(x(index))}" y="${labelY}" text-anchor="${anchor(index)}">${escape(data.labels[index] ?? '')}</text>`,
    );
  }
  const marks = data.values.map((series, which) => {
    const colour = COLOURS[which % COLOURS.length] ?? '#000';
    if (view.type === 'bar') {
      const width = Math.max((slot * 0.8) / data.values.length, 1);
      const zero = y(Math.min(Math.max(0, yLow), yHigh));
      return series
        .map((value, index) => {
          if (value === null) return '';
          const top = Math.min(y(value), zero);
          const height = Math.abs(y(value) - zero);
          const left = x(index) - (slot * 0.8) / 2 + width * which;
          return `<rect x="${fixed(left)}" y="${fixed(top)}" width="${fixed(width)}" height="${fixed(height)}" fill="${colour}"/>`;
        })
        .join('');
    }
    const path = series
      .map((value, index) => (value === null ? '' : `${fixed(x(index))},${fixed(y(value))}`))
      .filter(Boolean)
      .join(' ');
    return `<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="2"/>`;
  });
  const legend = view.series
    .map(
      (name, which) =>
        `<span class="key"><span class="swatch c${String(which % COLOURS.length)}"></span>${escape(name)}</span>`,
    )
    .join(' ');
  const span =
    data.x && points > 0 ? ` from ${data.labels[0] ?? ''} to ${data.labels.at(-1) ?? ''}` : '';
  const description = `${view.type === 'bar' ? 'Bar' : 'Line'} chart of ${view.series.join(', ')} by ${view.group}, ${counted(points, 'point')}${span}, values from ${plain(low)} to ${plain(high)}.`;
  return `<figure class="chart"><figcaption>${escape(view.title)}</figcaption>
<svg viewBox="0 0 ${String(WIDTH)} ${String(HEIGHT)}" role="img" aria-label="${escape(`${view.title}. ${description}`)}" font-size="12" fill="#5b6577">
<title>${escape(view.title)}</title><desc>${escape(description)}</desc>
${grid.join('')}${xLabels.join('')}${marks.join('')}
</svg><div class="legend">${legend}</div></figure>`;
}
