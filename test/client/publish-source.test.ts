import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  openPublishSource,
  validateForPublish,
} from '../../packages/cli/src/client/publish-source.js';
import type { HeldDescriptor } from '../../packages/cli/src/client/validate.js';
import { InputError, UsageError } from '../../packages/core/src/errors.js';
import type { Report } from '../../packages/core/src/validator/report/types.js';

const CITIES = join(import.meta.dirname, '../../examples/cities');
const signal = new AbortController().signal;

/** A folder holding one CSV file of integers, its path. */
function singleCsv(): string {
  const dir = mkdtempSync(join(tmpdir(), 'data-source-'));
  writeFileSync(join(dir, 'prices.csv'), 'a\n1\n2\n');
  return join(dir, 'prices.csv');
}

/** The descriptors publications left under the temporary folder that name this dataset. */
function leftDescriptors(name: string): string[] {
  return readdirSync(tmpdir())
    .filter((folder) => folder.startsWith('data-publish-'))
    .map((folder) => join(tmpdir(), folder, 'datapackage.json'))
    .filter((file) => existsSync(file) && readFileSync(file, 'utf8').includes(`"${name}"`));
}

/** A validation that answers these reports in turn and records what it was given. */
function answering(reports: Partial<Report>[]): {
  validate: (held?: HeldDescriptor) => Promise<Report>;
  given: (HeldDescriptor | undefined)[];
} {
  const given: (HeldDescriptor | undefined)[] = [];
  return {
    given,
    validate: (held) => {
      given.push(held && structuredClone(held));
      const report = reports[given.length - 1] ?? reports.at(-1);
      return Promise.resolve({ valid: true, errors: [], tasks: [], ...report } as Report);
    },
  };
}

describe('openPublishSource', () => {
  it('says a path that is not there does not exist', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'data-source-')), 'nonexistent');
    const error: unknown = await openPublishSource(missing, undefined, undefined).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(`"${missing}" does not exist`);
  });

  it('makes a package of a single file, named after it, whose descriptor goes at cleanup', async () => {
    const source = await openPublishSource(singleCsv(), undefined, undefined);
    expect(source.inferred).toBe(true);
    expect(source.descriptor.name).toBe('prices');
    expect(JSON.parse(readFileSync(source.descriptorFile, 'utf8'))).toEqual(source.descriptor);
    await source.cleanup();
    expect(existsSync(source.descriptorFile)).toBe(false);
  });

  it('reads a folder’s own descriptor, and leaves it at cleanup', async () => {
    const source = await openPublishSource(CITIES, undefined, undefined);
    expect(source.inferred).toBeUndefined();
    expect(source.descriptorFile).toBe(join(CITIES, 'datapackage.json'));
    expect(source.descriptor.name).toBe('world-cities');
    await source.cleanup();
    expect(existsSync(source.descriptorFile)).toBe(true);
  });

  it('removes what it made when the sheets asked for cannot be chosen', async () => {
    // A name of its own: other tests may be publishing at the same time.
    const name = `sheets-${String(process.pid)}-${String(Date.now())}`;
    const error: unknown = await openPublishSource(singleCsv(), name, 'all').catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).reason).toBe('no-workbooks');
    expect(leftDescriptors(name)).toEqual([]);
  });
});

describe('validateForPublish', () => {
  it('loosens a single file’s inferred schema until the data validates, and writes it', async () => {
    const source = await openPublishSource(singleCsv(), undefined, undefined);
    try {
      const { validate, given } = answering([
        {
          valid: false,
          tasks: [
            {
              name: 'prices',
              errors: [{ type: 'type-error', fieldName: 'a', cell: 'x', message: 'x' }],
            },
          ] as unknown as Report['tasks'],
        },
        { valid: true },
      ]);
      const report = await validateForPublish(source, validate, signal);
      expect(report.valid).toBe(true);
      expect(given).toHaveLength(2);
      const field = (descriptor: unknown) =>
        (descriptor as { resources: { schema: { fields: { type: string }[] } }[] }).resources[0]
          ?.schema.fields[0]?.type;
      expect(field(given[0]?.descriptor)).toBe('integer');
      expect(field(given[1]?.descriptor)).toBe('string');
      expect(field(source.descriptor)).toBe('string');
      expect(field(JSON.parse(readFileSync(source.descriptorFile, 'utf8')))).toBe('string');
    } finally {
      await source.cleanup();
    }
  });

  it('validates a package as data validate does, from its files', async () => {
    const source = await openPublishSource(CITIES, undefined, undefined);
    const { validate, given } = answering([{ valid: false }]);
    expect((await validateForPublish(source, validate, signal)).valid).toBe(false);
    expect(given).toEqual([undefined]);
  });

  it('validates the descriptor held in memory when sheets were chosen', async () => {
    const source = await openPublishSource(CITIES, undefined, undefined);
    source.sheetsChosen = true;
    const { validate, given } = answering([{ valid: true }]);
    await validateForPublish(source, validate, signal);
    expect(given).toEqual([{ descriptor: source.descriptor, dir: CITIES }]);
  });
});
