/** docs/validate.md names each error type the validator reports, with the tags it carries. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_SPECS, ERROR_TYPES } from '../../packages/core/src/validator/report/catalog.js';

const page = readFileSync(join(import.meta.dirname, '../../docs/validate.md'), 'utf8');

/** The rows of the page's "Error types" table: each type with its tags. */
function documentedTypes(): Map<string, string[]> {
  const section = page.split(/^## Error types$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows = [...section.matchAll(/^\| `([a-z-]+)` \|([^|]*)\|/gm)];
  return new Map(rows.map((row) => [row[1] ?? '', row[2]?.match(/#[a-z]+/g) ?? []]));
}

describe('docs/validate.md', () => {
  it('has a row for each error type, with its tags, and none for a type that is not', () => {
    const documented = documentedTypes();
    expect([...documented.keys()].sort()).toEqual([...ERROR_TYPES].sort());
    for (const type of ERROR_TYPES) expect(documented.get(type)).toEqual(ERROR_SPECS[type].tags);
  });
});
