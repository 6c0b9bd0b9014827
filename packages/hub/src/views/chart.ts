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

export interface ChartData {
  /** One label per point. */
  labels: string[];
  /** One list of values (null where a cell is empty or not a number) per series. */
  values: (number | null)[][];
}

const WIDTH = 720;
const HEIGHT = 320;
const PAD = { left: 64, right: 16, top: 16, bottom: 40 };
// Colours told apart by people with the common colour blindnesses (Okabe and Ito).
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9'];

function tick(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude >= 1e6 || magnitude < 1e-3)) return value.toExponential(1);
  return Number(value.toPrecision(4)).toLocaleString('en-US');
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
  return low === high ? [low - 1, high + 1] : [low, high];
}

/** The legend's colours: classes, since the pages' security policy allows no inline style. */
export const CHART_STYLES = COLOURS.map(
  (colour, index) => `.swatch.c${String(index)} { background: ${colour}; }`,
).join('\n');

/**
 * The chart as SVG drawn on the server: no script in the page. It has a title and a text
 * description for screen readers, and its legend names each series.
 */
export function chartSvg(view: SimpleView, data: ChartData): string {
  const [low, high] = bounds(data.values, view.type === 'bar');
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const points = data.labels.length;
  const y = (value: number) => PAD.top + plotHeight - ((value - low) / (high - low)) * plotHeight;
  const slot = plotWidth / Math.max(points, 1);
  const x = (index: number) => PAD.left + slot * (index + 0.5);
  const grid = [0, 0.25, 0.5, 0.75, 1].map((share) => {
    const value = low + (high - low) * share;
    const at = y(value).toFixed(1);
    return `<line x1="${String(PAD.left)}" x2="${String(WIDTH - PAD.right)}" y1="${at}" y2="${at}" stroke="#e3e7ee"/><text x="${String(PAD.left - 6)}" y="${at}" text-anchor="end" dominant-baseline="middle">${escape(tick(value))}</text>`;
  });
  const shown = [...new Set([0, Math.floor((points - 1) / 2), points - 1])].filter(
    (index) => index >= 0,
  );
  // The first label starts at its point and the last ends at its: neither leaves the chart.
  const anchor = (index: number) =>
    points > 1 && index === 0 ? 'start' : points > 1 && index === points - 1 ? 'end' : 'middle';
  const xLabels = shown.map(
    (index) =>
      `<text x="${x(index).toFixed(1)}" y="${String(HEIGHT - PAD.bottom + 18)}" text-anchor="${anchor(index)}">${escape(data.labels[index] ?? '')}</text>`,
  );
  const marks = data.values.map((series, which) => {
    const colour = COLOURS[which % COLOURS.length] ?? '#000';
    if (view.type === 'bar') {
      const width = Math.max((slot * 0.8) / data.values.length, 1);
      return series
        .map((value, index) => {
          if (value === null) return '';
          const top = Math.min(y(value), y(Math.max(low, 0)));
          const height = Math.abs(y(value) - y(Math.max(low, 0)));
          const left = x(index) - (slot * 0.8) / 2 + width * which;
          return `<rect x="${left.toFixed(1)}" y="${top.toFixed(1)}" width="${width.toFixed(1)}" height="${height.toFixed(1)}" fill="${colour}"/>`;
        })
        .join('');
    }
    const path = series
      .map((value, index) =>
        value === null ? '' : `${x(index).toFixed(1)},${y(value).toFixed(1)}`,
      )
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
  const description = `${view.type === 'bar' ? 'Bar' : 'Line'} chart of ${view.series.join(', ')} by ${view.group}, ${counted(points, 'point')}, from ${tick(low)} to ${tick(high)}.`;
  return `<figure class="chart"><figcaption>${escape(view.title)}</figcaption>
<svg viewBox="0 0 ${String(WIDTH)} ${String(HEIGHT)}" role="img" aria-label="${escape(`${view.title}. ${description}`)}" font-size="12" fill="#5b6577">
<title>${escape(view.title)}</title><desc>${escape(description)}</desc>
${grid.join('')}${xLabels.join('')}${marks.join('')}
</svg><div class="legend">${legend}</div></figure>`;
}
