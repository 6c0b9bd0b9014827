import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import type { SchemaDescriptor } from '../../packages/core/src/validator/descriptor/types.js';
import {
  validate,
  type Report,
  type ValidateOptions,
} from '../../packages/core/src/validator/index.js';

const created: string[] = [];

afterEach(() => {
  while (created.length > 0) rmSync(created.pop() ?? '', { recursive: true, force: true });
});

/** A temporary folder with the given files (strings or bytes), removed after the test. */
export function folder(files: Record<string, string | Uint8Array | object>): string {
  const dir = mkdtempSync(join(tmpdir(), 'data-test-'));
  created.push(dir);
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    const data =
      typeof content === 'string' || content instanceof Uint8Array
        ? content
        : JSON.stringify(content);
    writeFileSync(path, data);
  }
  return dir;
}

/** The schema of a prices table: an integer id, its primary key, and a number price. */
export function pricesSchema(): SchemaDescriptor {
  return {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'price', type: 'number' },
    ],
    primaryKey: ['id'],
  };
}

/**
 * A package of one table at data/prices.csv with these rows (an integer id, its key, and a
 * price): the shape the tests of revisions publish again and again with other rows.
 */
export function pricesPackage(csv: string): string {
  return folder({
    'data/prices.csv': csv,
    'datapackage.json': {
      name: 'prices',
      resources: [
        {
          name: 'prices',
          path: 'data/prices.csv',
          schema: pricesSchema(),
        },
      ],
    },
  });
}

/** A package with one CSV resource and the given schema and extra resource properties. */
export function tablePackage(
  csv: string | Uint8Array,
  resource: Record<string, unknown> = {},
  descriptor: Record<string, unknown> = {},
): string {
  return folder({
    'data.csv': csv,
    'datapackage.json': {
      name: 'test',
      ...descriptor,
      resources: [{ name: 'data', path: 'data.csv', ...resource }],
    },
  });
}

export function check(source: string, options: Partial<ValidateOptions> = {}): Promise<Report> {
  return validate(source, { fetch: globalThis.fetch, ...options });
}

/** The error types of a report in order, with row and field where they apply. */
export function summary(report: Report): string[] {
  const describe = (error: Report['errors'][number]): string =>
    [error.type, error.rowNumber, error.fieldNumber].filter((part) => part !== undefined).join('@');
  return [
    ...report.errors.map(describe),
    ...report.tasks.flatMap((task) => task.errors.map(describe)),
  ];
}

export function schema(...fields: Record<string, unknown>[]): {
  schema: { fields: Record<string, unknown>[] };
} {
  return { schema: { fields } };
}

/**
 * A package whose pattern `(a+)+$` a backtracking engine takes exponential time to refuse on
 * each of its `rows` cells (14 `a`s and a `!`); linear engines take microseconds a cell.
 */
export function backtrackingPackage(rows: number): string {
  return folder({
    't.csv': `v\n${`${'a'.repeat(14)}!\n`.repeat(rows)}`,
    'datapackage.json': {
      name: 'p',
      resources: [
        {
          name: 't',
          path: 't.csv',
          schema: { fields: [{ name: 'v', constraints: { pattern: '(a+)+$' } }] },
        },
      ],
    },
  });
}
