/** Where a derived resource is kept (core's derivedFile) and the names derived resources take. */
import { describe, expect, it } from 'vitest';
import {
  derivedFile,
  derivedNames,
  FILE_NAME_BYTES,
  unusedName,
} from '../../packages/core/src/model/derived.js';

describe('derivedFile', () => {
  it('writes a name too long for a file as a short one of its own, the same each time', () => {
    const long = 'l'.repeat(250);
    const names = [
      `${long}_csv_preview`,
      `${long}_csv`,
      `${'l'.repeat(251)}_csv`,
      `${'.'.repeat(90)}_csv_preview`,
      `${'.'.repeat(91)}_csv_preview`,
      `a/${long}_csv`,
      `${long}/a_csv`,
      `${'x'.repeat(64)}${long}`,
      `${'x'.repeat(64)}${long}x`,
      // Names that look like what the long ones are written as.
      `~~h${'0'.repeat(64)}~${'l'.repeat(64)}`,
      `~h${'0'.repeat(64)}~${'l'.repeat(64)}`,
      'h',
      'l'.repeat(FILE_NAME_BYTES - 5),
      'l'.repeat(FILE_NAME_BYTES - 4),
    ];
    const files = names.map((name) => derivedFile(name, 'json'));
    expect(new Set(files).size).toBe(names.length);
    for (const file of files)
      for (const part of file.split('/')) {
        expect(Buffer.byteLength(part), file).toBeLessThanOrEqual(FILE_NAME_BYTES);
        expect(part === '' || part.startsWith('.'), file).toBe(false);
      }
    expect(files.map((file, index) => file === derivedFile(names[index] ?? '', 'json'))).toEqual(
      names.map(() => true),
    );
    // A name whose file fits is kept as itself (the last but one), one a byte longer is not.
    expect(files.at(-2)).toBe(`${'l'.repeat(FILE_NAME_BYTES - 5)}.json`);
    expect(files.at(-1)).toMatch(/^~~h[0-9a-f]{64}~l{64}\.json$/);
    // Each format its own file.
    expect(derivedFile(names[0] ?? '', 'csv')).not.toBe(derivedFile(names[0] ?? '', 'json'));
  });
});

describe('the names of derived resources', () => {
  it("never take a resource's name, and keep the original service's where free", () => {
    const taken = new Set(['t', 't_csv', 't_parquet', 't_csv_2']);
    expect(derivedNames('t', taken)).toEqual({
      'derived/csv': 't_csv_3',
      'derived/json': 't_json',
      'derived/preview': 't_csv_preview',
      'derived/parquet': 't_parquet_2',
    });
    expect(derivedNames('t_csv', taken)).toEqual({
      'derived/csv': 't_csv_csv',
      'derived/json': 't_csv_json',
      'derived/preview': 't_csv_csv_preview',
      'derived/parquet': 't_csv_parquet',
    });
    expect(unusedName('t_json', taken)).toBe('t_json_2');
    expect(taken.size).toBe(4 + 4 + 4 + 1);
  });
});
