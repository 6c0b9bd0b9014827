import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Markdown as an attacker writes it: raw HTML, script links, event handlers. */
export const HOSTILE_README = `# Monthly rainfall

Measured at **three** stations. See [the method](https://example.org/method).

<script>document.title = 'owned'</script>
<img src="x" onerror="document.title = 'owned'">
[click me](javascript:document.title='owned')
[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)

| station | since |
| --- | --- |
| Oslo | 1990 |
`;

/**
 * A package with everything a dataset page shows: licence, sources, keywords, version,
 * contributors, a README, a table of 45 rows with a schema and keys, and a line chart view.
 */
export function writeRichPackage(dir: string, name = 'rainfall'): void {
  mkdirSync(join(dir, 'data'), { recursive: true });
  const rows = Array.from({ length: 45 }, (_, index) => {
    const month = `20${String(20 + Math.floor(index / 12))}-${String((index % 12) + 1).padStart(2, '0')}`;
    return `${month},${String(40 + ((index * 37) % 90))}.5,${String(index % 3 === 0 ? '' : 10 + index)}`;
  });
  writeFileSync(join(dir, 'data', 'rain.csv'), `month,rain_mm,days\n${rows.join('\n')}\n`);
  writeFileSync(join(dir, 'README.md'), HOSTILE_README);
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify(
      {
        name,
        title: 'Monthly rainfall',
        description: 'Rain per month at one station, 2020–2023.',
        version: '1.2.0',
        keywords: ['rain', 'weather'],
        licenses: [
          {
            name: 'CC-BY-4.0',
            title: 'Creative Commons Attribution 4.0',
            path: 'https://creativecommons.org/licenses/by/4.0/',
          },
        ],
        sources: [{ title: 'Met office', path: 'https://example.org/met' }],
        contributors: [{ title: 'Ada Lovelace', role: 'author' }],
        resources: [
          {
            name: 'rain',
            title: 'Rain by month',
            path: 'data/rain.csv',
            schema: {
              fields: [
                { name: 'month', type: 'yearmonth', description: 'Month of the reading' },
                {
                  name: 'rain_mm',
                  type: 'number',
                  description: 'Rain in millimetres',
                  constraints: { minimum: 0 },
                },
                { name: 'days', type: 'integer' },
              ],
              primaryKey: ['month'],
            },
          },
        ],
        views: [
          {
            name: 'rain-chart',
            title: 'Rain by month',
            resources: ['rain'],
            specType: 'simple',
            spec: { type: 'line', group: 'month', series: ['rain_mm'] },
          },
        ],
      },
      null,
      2,
    ),
  );
}
