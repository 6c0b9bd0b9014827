import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runData, tempDir } from '../hub/helpers.js';

const A = 'year,rate\n2024,3.5\n2025,3.75\n';
const B = 'id\n1\n2\n3\n';
const md5 = (text: string): string => createHash('md5').update(text).digest('hex');
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A descriptor written by hand: four spaces, its own key order, values gone stale. */
const STALE_JSON = `{
    "resources": [
        {
            "path": "a.csv",
            "hash": "0123456789abcdef0123456789abcdef",
            "name": "a",
            "bytes": 12
        },
        {
            "name": "b",
            "bytes": 5, "hash": "sha256:${'0'.repeat(64)}",
            "path": "b.csv"
        }
    ],
    "name": "rates"
}
`;

const STALE_YAML = `# Rates, by year
name: rates
resources:
  - name: a   # the main table
    path: a.csv
    bytes: 12
    hash: '0123456789abcdef0123456789abcdef'
`;

function folder(descriptorName: string, text: string): string {
  const dir = tempDir();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'a.csv'), A);
  writeFileSync(join(dir, 'b.csv'), B);
  writeFileSync(join(dir, descriptorName), text);
  return dir;
}

describe('data init --yaml', () => {
  it('writes a datapackage.yaml that validates, and will not add a second descriptor', async () => {
    const dir = tempDir();
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'a.csv'), A);
      const init = await runData(['init', '--yaml', dir]);
      expect(init.code).toBe(0);
      expect(readFileSync(join(dir, 'datapackage.yaml'), 'utf8')).toMatch(/^name: /m);
      expect((await runData(['validate', dir])).code).toBe(0);
      const json = await runData(['init', dir]);
      expect(json.code).toBe(2);
      expect(json.err).toContain('datapackage.yaml describes this folder already');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('data init --refresh', () => {
  it('updates bytes and hash in their algorithm, and leaves every other byte as it was', async () => {
    const dir = folder('datapackage.json', STALE_JSON);
    try {
      const stale = await runData(['validate', dir]);
      expect(stale.code).toBe(1);
      expect(stale.err).toContain(`\`data init --refresh ${dir}\` updates them`);
      const refreshed = await runData(['init', '--refresh', dir]);
      expect(refreshed.code).toBe(0);
      expect(refreshed.out).toContain(`resource "a" bytes 12 → ${String(A.length)}`);
      expect(refreshed.out).toContain(
        `resource "b" hash sha256:${'0'.repeat(64)} → sha256:${sha256(B)}`,
      );
      expect(readFileSync(join(dir, 'datapackage.json'), 'utf8')).toBe(
        STALE_JSON.replace('0123456789abcdef0123456789abcdef', md5(A))
          .replace('"bytes": 12', `"bytes": ${String(A.length)}`)
          .replace('"bytes": 5', `"bytes": ${String(B.length)}`)
          .replace(`sha256:${'0'.repeat(64)}`, `sha256:${sha256(B)}`),
      );
      expect((await runData(['validate', dir])).code).toBe(0);
      const again = await runData(['init', '--refresh', dir]);
      expect(again.out).toContain('every bytes and hash is up to date');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the comments and quoting of a YAML descriptor', async () => {
    const dir = folder('datapackage.yaml', STALE_YAML);
    try {
      expect((await runData(['init', '--refresh', dir])).code).toBe(0);
      expect(readFileSync(join(dir, 'datapackage.yaml'), 'utf8')).toBe(
        STALE_YAML.replace('bytes: 12', `bytes: ${String(A.length)}`).replace(
          "'0123456789abcdef0123456789abcdef'",
          `'${md5(A)}'`,
        ),
      );
      expect((await runData(['validate', dir])).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says there is nothing to refresh in a folder without a descriptor, with exit 2', async () => {
    const dir = tempDir();
    try {
      const none = await runData(['init', '--refresh', dir]);
      expect(none.code).toBe(2);
      expect(none.err).toContain('has no descriptor to refresh');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
