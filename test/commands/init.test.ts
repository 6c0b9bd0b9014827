import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folder } from '../helpers/fixtures.js';
import { runCli } from '../helpers/cli.js';

const late = `n,v\n${Array.from({ length: 150 }, (_, index) => `${String(index)},${String(index)}`).join('\n')}\n150,oops\n`;

describe('data init', () => {
  it('describes the data files of a folder in a datapackage.json that validates', async () => {
    const dir = folder({
      'data/people.csv': 'id,name,born\n1,Ada,1815-12-10\n2,Grace,1906-12-09\n',
      'data/dup.csv': 'code,n\nA,1\nA,2\n',
      'late.csv': late,
      'notes.pdf': 'PDF',
      'README.md': '# about',
      '.hidden/x.csv': 'a\n1\n',
    });
    const { code, out } = await runCli(['init', dir]);
    expect(code).toBe(0);
    expect(out).toContain('4 resources');
    const descriptor = JSON.parse(readFileSync(join(dir, 'datapackage.json'), 'utf8')) as {
      resources: {
        name: string;
        path: string;
        schema?: { fields: { name: string; type: string }[]; primaryKey?: string[] };
      }[];
    };
    const byName = Object.fromEntries(
      descriptor.resources.map((resource) => [resource.name, resource]),
    );
    expect(Object.keys(byName).sort()).toEqual(['dup', 'late', 'notes', 'people']);
    expect(byName.people?.schema?.fields.map((field) => field.type)).toEqual([
      'integer',
      'string',
      'date',
    ]);
    expect(byName.people?.schema?.primaryKey).toEqual(['id']);
    expect(byName.dup?.schema?.primaryKey).toBeUndefined();
    // Row 152 contradicts the first hundred: the field is widened until validation passes.
    expect(byName.late?.schema?.fields[1]?.type).toBe('string');
    expect(byName.notes?.schema).toBeUndefined();
    expect((await runCli(['validate', dir])).code).toBe(0);
  });

  it('never overwrites without --force, and prints instead of writing with --json', async () => {
    const dir = folder({ 't.csv': 'a\n1\n' });
    writeFileSync(join(dir, 'datapackage.json'), '{"name":"mine","resources":[]}');
    const refused = await runCli(['init', dir]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('pass --force');
    expect(readFileSync(join(dir, 'datapackage.json'), 'utf8')).toBe(
      '{"name":"mine","resources":[]}',
    );
    const printed = await runCli(['--json', 'init', dir]);
    expect(JSON.parse(printed.out)).toMatchObject({ resources: [{ name: 't', path: 't.csv' }] });
    expect((await runCli(['init', dir, '--force'])).code).toBe(0);
    expect(readFileSync(join(dir, 'datapackage.json'), 'utf8')).toContain('"path": "t.csv"');
  });
});
