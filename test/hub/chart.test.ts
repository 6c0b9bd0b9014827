import { describe, expect, it } from 'vitest';
import { chartSvg, inOrderOfX } from '../../packages/hub/src/views/chart.js';

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
      'aria-label="Balance. Bar chart of in, out by year, 3 points, from -5 to 20."',
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
});
