import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserLogin, runData, tempDir, withHub } from './helpers.js';

/** A package described in YAML, as datasets/country-codes describes itself. */
const YAML_DESCRIPTOR = `# The countries of the world
name: codes
title: Country codes
related:
  - title: Other lists
    path: /core/other
resources:
  - name: codes
    path: data/codes.csv
    schema:
      fields:
        - name: name
          type: string
        - name: code
          type: string
          constraints:
            pattern: '[A-Z]{2}'
`;

function yamlPackage(dir: string, name = 'datapackage.yaml', text = YAML_DESCRIPTOR): string {
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'data', 'codes.csv'), 'name,code\nFrance,FR\nJapan,JP\n');
  writeFileSync(join(dir, name), text);
  return dir;
}

describe('descriptors in YAML', () => {
  it('are validated as datapackage.yaml, datapackage.yml or a path to either', async () => {
    const dir = tempDir();
    try {
      yamlPackage(dir, 'datapackage.yml');
      const folder = await runData(['validate', dir]);
      expect(folder.err).toBe('');
      expect(folder.code).toBe(0);
      expect((await runData(['validate', join(dir, 'datapackage.yml')])).code).toBe(0);
      expect((await runData(['--json', 'info', dir])).out).toContain('Country codes');
      const byPath = await runData(['--json', 'info', join(dir, 'datapackage.yml')]);
      expect(byPath.out).toContain('Country codes');
      expect((await runData(['cat', dir, 'codes'])).out).toContain('Japan');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('point at the line and column of a YAML error, and a folder with two descriptors names both', async () => {
    const dir = tempDir();
    try {
      yamlPackage(dir, 'datapackage.yaml', 'name: codes\nresources:\n  - name: [unclosed\n');
      const broken = await runData(['--json', 'validate', dir]);
      expect(broken.code).toBe(1);
      expect(broken.out).toMatch(/cannot parse the descriptor as YAML: .* at line \d+ column \d+/);
      writeFileSync(join(dir, 'datapackage.json'), '{}');
      const both = await runData(['validate', dir]);
      expect(both.code).toBe(2);
      expect(both.err).toContain('datapackage.json and datapackage.yaml');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are published as the same descriptor in JSON, and fetched back', async () => {
    const dir = tempDir();
    const work = tempDir();
    try {
      yamlPackage(dir);
      await withHub({}, async ({ url }) => {
        const env = { DATA_API: url, DATA_TOKEN: await browserLogin(url) };
        const published = await runData(['publish', dir], { env });
        expect(published.err).not.toMatch(/^error/m);
        expect(published.code).toBe(0);
        const descriptor = (await (await fetch(`${url}/ada/codes/datapackage.json`)).json()) as {
          title: string;
          related: unknown;
          resources: { name: string; schema?: unknown }[];
        };
        expect(descriptor.title).toBe('Country codes');
        expect(descriptor.related).toEqual([{ title: 'Other lists', path: '/core/other' }]);
        expect(descriptor.resources[0]?.schema).toEqual({
          fields: [
            { name: 'name', type: 'string' },
            { name: 'code', type: 'string', constraints: { pattern: '[A-Z]{2}' } },
          ],
        });
        const got = await runData(['get', 'ada/codes'], { env, cwd: work });
        expect(got.err).not.toMatch(/^error/m);
        expect(got.code).toBe(0);
        expect(readFileSync(join(work, 'ada', 'codes', 'data', 'codes.csv'), 'utf8')).toBe(
          readFileSync(join(dir, 'data', 'codes.csv'), 'utf8'),
        );
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    }
  });
});
