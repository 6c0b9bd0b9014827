import { describe, expect, it } from 'vitest';
import type { PackageDiff } from '../../packages/core/src/index.js';
import { diffBody } from '../../packages/hub/src/views/diff.js';

const window = { skipped: 0, pageRows: 50 };

function diffOf(resources: PackageDiff['resources']): PackageDiff {
  return { a: 'ada/x@1', b: 'ada/x@2', properties: [], resources };
}

const noSchemaChange = { added: [], removed: [], changed: [], keys: [] };

describe('the diff page as tables', () => {
  it('draws a changed table: schema changes above, rows added, removed and changed, cells marked', () => {
    const html = diffBody(
      diffOf([
        {
          name: 'prices',
          status: 'changed',
          schema: {
            added: ['note'],
            removed: [],
            changed: [{ field: 'price', from: { type: 'integer' }, to: { type: 'number' } }],
            keys: [],
          },
          rows: { added: 1, removed: 1, changed: 1, unchanged: 7, key: ['id'] },
          samples: {
            added: [{ id: 4, price: 4.5, note: 'new' }],
            removed: [{ id: 3, price: 3, note: null }],
            changed: [{ key: { id: 2 }, cells: { price: { from: 2, to: 2.5 } } }],
          },
        },
      ]),
      window,
    );
    const schemaAt = html.indexOf('Schema changes');
    expect(schemaAt).toBeGreaterThan(0);
    expect(schemaAt).toBeLessThan(html.indexOf('<table'));
    expect(html).toContain('Field <code>note</code> added');
    expect(html).toContain(
      'Field <code>price</code>: type <del>&quot;integer&quot;</del> → <ins>&quot;number&quot;</ins>',
    );
    expect(html).toContain(
      '1 row added, 1 removed, 1 changed, 7 unchanged (rows matched by <code>id</code>).',
    );
    expect(html).toContain(
      '<tr><th scope="col">Change</th><th scope="col">id</th><th scope="col">price</th><th scope="col">note</th></tr>',
    );
    expect(html).toContain(
      '<tr class="added"><td class="change">+ Added</td><td>4</td><td>4.5</td><td>new</td></tr>',
    );
    expect(html).toContain(
      '<tr class="removed"><td class="change">− Removed</td><td>3</td><td>3</td><td><span class="none">empty</span></td></tr>',
    );
    expect(html).toContain(
      '<tr class="changed"><td class="change">~ Changed</td><td>2</td><td class="cell-changed"><del><span class="hidden">was </span>2</del> → <ins><span class="hidden">now </span>2.5</ins></td><td></td></tr>',
    );
    // The table scrolls in its own region, which the keyboard reaches.
    expect(html).toMatch(
      /<div class="scroll diff-rows" role="region" aria-label="Rows of prices" tabindex="0">/,
    );
    expect(html).toContain('Rows shown: 1–1 of 1 added; 1–1 of 1 removed; 1–1 of 1 changed');
  });

  it('escapes names and values, cuts long cells and wide tables, and says what it leaves out', () => {
    const wide = Object.fromEntries(
      Array.from({ length: 45 }, (_, index) => [`c${String(index)}`, index]),
    );
    const html = diffBody(
      diffOf([
        {
          name: '<b>t</b>',
          status: 'changed',
          renamedFrom: '<i>old</i>',
          schema: noSchemaChange,
          rows: { added: 130, removed: 0, changed: 0, unchanged: 0, key: null },
          samples: {
            added: [{ '<th>': '<script>alert(1)</script>', long: 'x'.repeat(500), ...wide }],
            removed: [],
            changed: [],
          },
        },
        {
          name: 'same',
          status: 'unchanged',
          schema: noSchemaChange,
          rows: { added: 0, removed: 0, changed: 0, unchanged: 3, key: null },
          samples: { added: [], removed: [], changed: [] },
        },
      ]),
      { skipped: 50, pageRows: 50 },
    );
    expect(html).not.toMatch(/<(script|b|i|th)>/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;b&gt;t&lt;/b&gt;');
    expect(html).toContain('renamed from <code>&lt;i&gt;old&lt;/i&gt;</code>');
    expect(html).toContain(`${'x'.repeat(200)}… <span class="none">(500 characters)</span>`);
    expect(html).toContain('The first 40 of 47 columns.');
    expect(html).toContain('Rows shown: 51–51 of 130 added');
    expect(html).toContain('rows matched whole: no primary key');
    expect(html).toContain('1 table changed, 1 unchanged.');
    expect(html).not.toContain('>same<');
  });

  it('says when nothing changed', () => {
    expect(diffBody(diffOf([]), window)).toContain('No changes');
  });
});
