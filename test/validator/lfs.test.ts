import { describe, expect, it } from 'vitest';
import { check, folder, summary } from '../helpers/fixtures.js';

/** A Git LFS pointer as `git clone` leaves one without `git lfs pull`. */
const pointer = (oid: string): string =>
  `version https://git-lfs.github.com/spec/v1\noid sha256:${oid.repeat(64).slice(0, 64)}\nsize 18210\n`;

describe('Git LFS pointers in place of the data', () => {
  it('are one error each, naming git lfs pull, and are not read as tables', async () => {
    const report = await check(
      folder({
        'data/a.csv': pointer('a'),
        'data/b1.csv': pointer('b'),
        'data/b2.csv': pointer('c'),
        'notes.pdf': pointer('d'),
        'datapackage.json': {
          name: 'lfs',
          resources: [
            {
              name: 'a',
              path: 'data/a.csv',
              schema: { fields: [{ name: 'year', type: 'integer' }] },
            },
            { name: 'b', path: ['data/b1.csv', 'data/b2.csv'] },
            { name: 'notes', path: 'notes.pdf', bytes: 18210 },
          ],
        },
      }),
    );
    expect(summary(report)).toEqual([
      'source-error',
      'source-error',
      'source-error',
      'source-error',
    ]);
    const notes = report.tasks.flatMap((task) => task.errors.map((error) => error.note));
    expect(notes).toEqual([
      '"data/a.csv" is a Git LFS pointer, not the data: fetch the data with `git lfs pull`',
      '"data/b1.csv" is a Git LFS pointer, not the data: fetch the data with `git lfs pull`',
      '"data/b2.csv" is a Git LFS pointer, not the data: fetch the data with `git lfs pull`',
      '"notes.pdf" is a Git LFS pointer, not the data: fetch the data with `git lfs pull`',
    ]);
  });

  it('are told apart from a table whose first line only looks like one', async () => {
    const report = await check(
      folder({
        'a.csv': 'version https://git-lfs.github.com/spec/v1,x\n1,2\n',
        'datapackage.json': { name: 't', resources: [{ name: 'a', path: 'a.csv' }] },
      }),
    );
    expect(report.valid).toBe(true);
  });
});
