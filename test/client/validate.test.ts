import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  annotationPlaces,
  onlyStaleSizes,
  validateSource,
  type ValidationDeps,
} from '../../packages/cli/src/client/validate.js';
import { InputError } from '../../packages/core/src/errors.js';
import type { ValidateEvent } from '../../packages/core/src/validator/index.js';
import type { Report } from '../../packages/core/src/validator/report/types.js';
import { fakeFetch, refuse } from '../helpers/fake-fetch.js';

const CITIES = join(import.meta.dirname, '../../examples/cities');

/** Deps of a validation in this thread, with no network, which record what they were told. */
function deps(overrides: Partial<ValidationDeps> = {}): ValidationDeps & {
  events: ValidateEvent[];
  readings: number;
} {
  const events: ValidateEvent[] = [];
  const made = {
    isolate: false,
    fetch: refuse,
    hubReading: () => {
      made.readings++;
      return Promise.resolve({ fetch: refuse, credential: undefined, withheld: () => undefined });
    },
    proxy: undefined,
    signal: new AbortController().signal,
    silenceMs: 30_000,
    onProgress: (event: ValidateEvent) => {
      events.push(event);
    },
    events,
    readings: 0,
    ...overrides,
  };
  return made;
}

describe('validateSource, the use case of data validate', () => {
  it('validates a local package in this thread, telling each resource, and asks for no token', async () => {
    const given = deps();
    const report = await validateSource({ source: CITIES, limitErrors: 1000 }, given);
    expect(report.valid).toBe(true);
    expect(report.tasks.map((task) => task.name)).toEqual(['countries', 'cities']);
    expect(
      given.events.filter((event) => event.type === 'resource').map((event) => event.name),
    ).toEqual(['countries', 'cities']);
    expect(given.readings).toBe(0);
  });

  it('reads a URL with the fetch that carries the hub’s token, not the plain one', async () => {
    const hub = fakeFetch({
      'https://hub.test/ada/t/datapackage.json': JSON.stringify({
        name: 't',
        resources: [
          { name: 't', path: 't.csv', schema: { fields: [{ name: 'a', type: 'integer' }] } },
        ],
      }),
      'https://hub.test/ada/t/t.csv': 'a\n1\nx\n',
    });
    const given = deps({
      hubReading: () => {
        given.readings++;
        return Promise.resolve({
          fetch: hub.fetch,
          credential: undefined,
          withheld: () => undefined,
        });
      },
    });
    const report = await validateSource(
      { source: 'https://hub.test/ada/t/datapackage.json', limitErrors: 1000 },
      given,
    );
    expect(given.readings).toBe(1);
    expect(hub.asked).toContain('https://hub.test/ada/t/t.csv');
    expect(report.valid).toBe(false);
    expect(report.tasks[0]?.errors.map((error) => error.type)).toEqual(['type-error']);
  });

  it('keeps what the options ask: picked error types, and a limit per resource', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'data-validate-'));
    writeFileSync(
      join(dir, 'datapackage.json'),
      JSON.stringify({
        name: 'p',
        resources: [
          {
            name: 't',
            path: 't.csv',
            schema: {
              fields: [
                { name: 'a', type: 'integer' },
                { name: 'b', type: 'string' },
              ],
            },
          },
        ],
      }),
    );
    writeFileSync(join(dir, 't.csv'), 'a,b\nx,1\ny,2\nz\n');
    const all = await validateSource({ source: dir, limitErrors: 1000 }, deps());
    const types = (report: Report) =>
      report.tasks.flatMap((task) => task.errors.map((e) => e.type));
    expect(types(all)).toEqual(['type-error', 'type-error', 'type-error', 'missing-cell']);
    const picked = await validateSource(
      { source: dir, limitErrors: 2, pickErrors: ['type-error'] },
      deps(),
    );
    expect(types(picked)).toEqual(['type-error', 'type-error']);
  });

  it('validates a descriptor held in memory against the folder’s files, leaving it as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'data-validate-'));
    writeFileSync(join(dir, 't.csv'), 'a\n1\nx\n');
    writeFileSync(join(dir, 'datapackage.json'), '{"name": "on-disk", "resources": []}');
    const descriptor = {
      name: 'held',
      resources: [
        { name: 't', path: 't.csv', schema: { fields: [{ name: 'a', type: 'integer' }] } },
      ],
    };
    const copy = structuredClone(descriptor);
    const report = await validateSource({ source: dir, limitErrors: 1000 }, deps(), {
      descriptor,
      dir,
    });
    expect(report.tasks.map((task) => task.name)).toEqual(['t']);
    expect(report.valid).toBe(false);
    expect(descriptor).toEqual(copy);
  });

  it('says a source that is not there is an input error, with what it takes', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'data-validate-')), 'nothing.csv');
    const error: unknown = await validateSource({ source: missing, limitErrors: 10 }, deps()).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toContain('nothing.csv');
    expect((error as InputError).hint).toContain('a folder with a datapackage.json');
  });
});

describe('where GitHub annotations point', () => {
  it('at a folder’s own descriptor, YAML included, and its files in the folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'data-validate-'));
    writeFileSync(join(dir, 'datapackage.yaml'), 'name: p\nresources: []\n');
    expect(await annotationPlaces(dir)).toEqual({
      descriptor: join(dir, 'datapackage.yaml'),
      base: dir,
    });
    expect(await annotationPlaces(CITIES)).toEqual({
      descriptor: join(CITIES, 'datapackage.json'),
      base: CITIES,
    });
  });

  it('at a file given, and its files beside it', async () => {
    const file = join(CITIES, 'datapackage.json');
    expect(readFileSync(file, 'utf8')).toContain('world-cities');
    expect(await annotationPlaces(file)).toEqual({ descriptor: file, base: CITIES });
  });
});

describe('onlyStaleSizes', () => {
  const report = (types: string[]): Report =>
    ({
      valid: types.length === 0,
      errors: [],
      tasks: [{ errors: types.map((type) => ({ type, message: type })) }],
    }) as unknown as Report;

  it('is true only when every error is a size or hash out of date', () => {
    expect(onlyStaleSizes(report(['byte-count', 'hash-count']))).toBe(true);
    expect(onlyStaleSizes(report(['byte-count', 'type-error']))).toBe(false);
    expect(onlyStaleSizes(report([]))).toBe(false);
  });
});
