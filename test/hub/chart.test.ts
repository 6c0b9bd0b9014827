import { describe, expect, it } from 'vitest';
import {
  calendarLabels,
  chartSvg,
  inOrderOfX,
  numberAxis,
  ordered,
  timeAxis,
} from '../../packages/hub/src/views/chart.js';

describe('charts of simple views, drawn as SVG', () => {
  it('draws bars from zero, below it for negative values, one colour per series', () => {
    const svg = chartSvg(
      { title: 'Balance', type: 'bar', group: 'year', series: ['in', 'out'] },
      {
        labels: ['2021', '2022', '2023'],
        values: [
          [10, 20, null],
          [-5, 0, 15],
        ],
      },
    );
    const bars = [
      ...svg.matchAll(
        /<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)" fill="(#\w+)"/g,
      ),
    ];
    // Five values (one missing), each a bar; two colours.
    expect(bars).toHaveLength(5);
    expect(new Set(bars.map((bar) => bar[3])).size).toBe(2);
    // The negative bar starts at the zero line and goes down; the zero bar has no height.
    const zeroLine = Number(bars[0]?.[1]) + Number(bars[0]?.[2]);
    const negative = bars.find((bar) => bar[3] === bars[2]?.[3] && Number(bar[2]) > 0);
    expect(Number(negative?.[1])).toBeCloseTo(zeroLine, 1);
    expect(bars.some((bar) => Number(bar[2]) === 0)).toBe(true);
    expect(svg).toContain(
      'aria-label="Balance. Bar chart of in, out by year, 3 points, values from -5 to 20."',
    );
    expect(svg).toContain('<span class="swatch c1"></span>out');
  });

  it('escapes what the descriptor and the data say', () => {
    const svg = chartSvg(
      { title: '<script>x</script>', type: 'line', group: 'g"', series: ['<b>'] },
      { labels: ['<i>', 'b'], values: [[1, 2]] },
    );
    expect(svg).not.toMatch(/<(script|b|i)>/);
    expect(svg).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(svg).toMatch(/<polyline points="[\d.]+,[\d.]+ [\d.]+,[\d.]+"/);
  });

  it('puts points in the order of x, a point without an x last, equal ones as they came', () => {
    expect(
      inOrderOfX({ labels: ['c', '', 'a', 'b', 'a2'], values: [[3, 9, 1, 2, 5]] }, [
        30,
        undefined,
        10,
        20,
        10,
      ]),
    ).toEqual({ labels: ['a', 'a2', 'b', 'c', ''], values: [[1, 5, 2, 3, 9]] });
    // A field of no order gives no keys: the table's order stays.
    expect(inOrderOfX({ labels: ['b', 'a'], values: [[1, 2]] }, [])).toEqual({
      labels: ['b', 'a'],
      values: [[1, 2]],
    });
  });

  it('puts number ticks at round steps (1, 2, 5 × 10^k), the axis widened to round bounds', () => {
    // The ticks the old chart drew for this range were 13, 23.8, 34.6 and so on.
    const axis = numberAxis(13, 56.2, 5);
    expect(axis.domain).toEqual([10, 60]);
    expect(axis.ticks.map((tick) => tick.label)).toEqual(['10', '20', '30', '40', '50', '60']);
    expect(numberAxis(0.013, 0.0472, 5).ticks.map((tick) => tick.label)).toEqual([
      '0.01',
      '0.02',
      '0.03',
      '0.04',
      '0.05',
    ]);
    expect(numberAxis(-3, 4.4, 5).ticks.map((tick) => tick.label)).toEqual([
      '-4',
      '-2',
      '0',
      '2',
      '4',
      '6',
    ]);
    expect(numberAxis(1200, 98_400, 5).ticks.map((tick) => tick.label)).toEqual([
      '0',
      '20,000',
      '40,000',
      '60,000',
      '80,000',
      '100,000',
    ]);
    expect(numberAxis(0, 2_500_000, 5).ticks.map((tick) => tick.label)).toEqual([
      '0',
      '500K',
      '1M',
      '1.5M',
      '2M',
      '2.5M',
    ]);
    // One value: an axis around it.
    expect(numberAxis(7, 7, 5).ticks.map((tick) => tick.value)).toEqual([6, 6.5, 7, 7.5, 8]);
    for (const [low, high] of [
      [0.1, 0.7],
      [-1234.5, 9876.5],
      [3, 3.0004],
    ] as const) {
      const steps = numberAxis(low, high, 5).ticks.map((tick) => tick.value);
      const step = (steps[1] ?? 0) - (steps[0] ?? 0);
      const mantissa = Number((step / 10 ** Math.floor(Math.log10(step))).toPrecision(3));
      expect([1, 2, 5]).toContain(mantissa);
    }
  });

  it('puts date ticks at calendar steps and says them as days, months or years', () => {
    const day = (text: string) => Date.parse(`${text}T00:00:00Z`);
    const labels = (low: string, high: string) =>
      timeAxis(day(low), day(high), 6).ticks.map((tick) => tick.label);
    expect(labels('2001-03-05', '2024-07-01')).toEqual(['2005', '2010', '2015', '2020']);
    expect(labels('2023-02-10', '2024-01-03')).toEqual([
      'Apr 2023',
      'Jul 2023',
      'Oct 2023',
      'Jan 2024',
    ]);
    // Days: the year said once, and again where it changes.
    expect(labels('2024-03-01', '2024-03-11')).toEqual([
      '2 Mar 2024',
      '4 Mar',
      '6 Mar',
      '8 Mar',
      '10 Mar',
    ]);
    expect(labels('2023-12-20', '2024-01-18')).toEqual([
      '24 Dec 2023',
      '31 Dec',
      '7 Jan 2024',
      '14 Jan',
    ]);
    // Times of one day (a `time` field reads as a time of 1 January 1970).
    expect(timeAxis(6 * 3_600_000, 18 * 3_600_000, 6).ticks.map((tick) => tick.label)).toEqual([
      '06:00',
      '09:00',
      '12:00',
      '15:00',
      '18:00',
    ]);
    expect(calendarLabels([Date.UTC(2024, 0, 1, 12), Date.UTC(2024, 0, 2, 0)])).toEqual([
      '1 Jan 12:00',
      '2 Jan 00:00',
    ]);
  });

  it('orders and places the points by x, and draws no line over categories', () => {
    const data = { labels: ['2024-03', '', '2023-12', 'x'], values: [[3, 9, 1, 4]] };
    // Year-months as the core reads them: a month count.
    const months = [2024 * 12 + 2, undefined, 2023 * 12 + 11, undefined];
    expect(ordered('line', data, 'yearmonth', months)).toEqual({
      labels: ['2023-12', '2024-03'],
      values: [[1, 3]],
      x: { scale: 'time', at: [Date.UTC(2023, 11, 1), Date.UTC(2024, 2, 1)] },
    });
    expect(ordered('line', data, 'year', [2021, 20, undefined, undefined])?.x?.at).toEqual([
      new Date(0).setUTCFullYear(20, 0, 1),
      Date.UTC(2021, 0, 1),
    ]);
    expect(ordered('bar', data, 'integer', [5, undefined, 2, undefined])).toMatchObject({
      labels: ['2023-12', '2024-03'],
      x: { scale: 'number', at: [2, 5] },
    });
    // A line over text or over values none of which reads: no chart. Bars of categories stay.
    expect(ordered('line', data, 'string', [])).toBeUndefined();
    expect(ordered('line', data, undefined, [])).toBeUndefined();
    expect(ordered('line', data, 'date', [])).toBeUndefined();
    expect(ordered('bar', data, 'string', [])).toEqual(data);
  });

  it('draws a line along its axis: points at their x, ticks in order', () => {
    const placed = ordered(
      'line',
      { labels: ['2024-01-31', '2024-01-01', '2024-01-02'], values: [[5, 1, 2]] },
      'date',
      [Date.UTC(2024, 0, 31), Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 2)],
    );
    if (!placed) throw new Error('dates have an order');
    const svg = chartSvg({ title: 'T', type: 'line', group: 'day', series: ['v'] }, placed);
    const xs = (/<polyline points="([^"]+)"/.exec(svg)?.[1] ?? '')
      .split(' ')
      .map((point) => Number(point.split(',')[0]));
    // One day apart, then 29: the points are spaced as their dates are.
    expect(xs).toHaveLength(3);
    const [a = 0, b = 0, c = 0] = xs;
    expect((c - b) / (b - a)).toBeCloseTo(29, 0);
    const ticks = [
      ...svg.matchAll(/<text x="([\d.]+)" y="\d+" text-anchor="\w+">([^<]*)<\/text>/g),
    ];
    expect(ticks.map((tick) => tick[2])).toEqual(
      ticks.map((tick) => tick[2]).filter((label) => /^\d{1,2} Jan( 2024)?$/.test(label ?? '')),
    );
    const at = ticks.map((tick) => Number(tick[1]));
    expect(at).toEqual([...at].sort((p, q) => p - q));
    expect(svg).toContain('3 points from 2024-01-01 to 2024-01-31, values from 1 to 5.');
  });
});
