import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folder, tablePackage } from '../helpers/fixtures.js';
import { runCli } from '../helpers/cli.js';

const CITIES = join(import.meta.dirname, '../../examples/cities');

describe('data cat', () => {
  it('heads every column of a Markdown table: a blank label by its field name', async () => {
    const dir = folder({ 'blank.csv': 'a,,c\n1,2,3\n' });
    const { code, out } = await runCli(['cat', join(dir, 'blank.csv'), '--format', 'markdown']);
    expect(code).toBe(0);
    expect(out.split('\n')[0]).toBe('| a | field2 | c |');
  });

  it('prints a resource of a package as CSV, quoting what needs quotes', async () => {
    const { code, out } = await runCli(['cat', CITIES, 'cities']);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toBe('id,city,country,population,area_km2,capital,founded,updated,location');
    expect(lines[1]).toBe('1,Paris,FR,2102650,105.4,true,0250,2024-01-15,"2.3522, 48.8566"');
    expect(lines).toHaveLength(8);
  });

  it('types JSON and NDJSON by the schema: numbers, booleans, null for missing values', async () => {
    const ndjson = await runCli(['cat', CITIES, 'cities', '--format', 'ndjson']);
    const rows = ndjson.out
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows[1]).toEqual({
      id: 2,
      city: 'Lyon',
      country: 'FR',
      population: 522250,
      area_km2: 47.87,
      capital: false,
      founded: null,
      updated: '2024-01-15',
      location: '4.8357, 45.7640',
    });
    const json = JSON.parse(
      (await runCli(['--json', 'cat', CITIES, 'countries'])).out,
    ) as unknown[];
    expect(json).toHaveLength(5);
    expect(json[0]).toEqual({ code: 'FR', name: 'France', continent: 'Europe' });
  });

  it('prints TSV and Markdown with their escapes', async () => {
    const pkg = tablePackage('a,b\n"x|y","tab\tin"\n');
    expect((await runCli(['cat', pkg, '--format', 'tsv'])).out).toBe('a\tb\nx|y\ttab\\tin\n');
    expect((await runCli(['cat', pkg, '--format', 'markdown'])).out).toBe(
      '| a | b |\n| --- | --- |\n| x\\|y | tab\tin |\n',
    );
  });

  it('reads a single file, header rows and comment rows as validation does', async () => {
    const dir = folder({
      't.csv': '# a comment\nid,name\n1,a\n',
      'datapackage.json': {
        name: 't',
        resources: [{ name: 't', path: 't.csv', dialect: { commentChar: '#' } }],
      },
    });
    expect((await runCli(['cat', dir])).out).toBe('id,name\n1,a\n');
    expect((await runCli(['cat', join(dir, 't.csv'), '--format', 'ndjson'])).out).toContain(
      '{"# a comment":"id"}',
    );
  });

  it('reads a table at a URL, as a single file', async () => {
    const server = createServer((request, response) =>
      request.url === '/files/prices.csv'
        ? response.end('item,price\npen,2\n')
        : response.writeHead(404).end(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const url = `http://127.0.0.1:${String(port)}/files/prices.csv`;
      expect(await runCli(['cat', url])).toEqual({ code: 0, out: 'item,price\npen,2\n', err: '' });
      expect((await runCli(['cat', url, 'prices'])).code).toBe(2);
    } finally {
      server.close();
    }
  });

  it('names the resources when the one asked for is not there', async () => {
    const { code, err } = await runCli(['cat', CITIES, 'towns']);
    expect(code).toBe(2);
    expect(err).toContain('has no resource "towns"');
    expect(err).toContain('countries, cities');
  });

  it('prints the sheets of a workbook with dates as the Table Schema writes them', async () => {
    const stations = join(import.meta.dirname, '../../examples/weather-stations');
    const csv = await runCli(['cat', stations, 'readings']);
    expect(csv.out.split('\n').slice(0, 2)).toEqual([
      'station,taken,temperature_c,checked',
      '1,2024-01-15T09:00:00,8.4,true',
    ]);
    const json = await runCli(['cat', stations, 'stations', '--format', 'ndjson']);
    expect(JSON.parse(json.out.split('\n')[0] ?? '')).toEqual({
      id: 1,
      name: 'Valentia',
      region: 'IE-M',
      opened: '1860-01-01',
      elevation_m: 9,
    });
  });
});
