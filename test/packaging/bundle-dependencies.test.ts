/**
 * The build's check that the CLI's bundles take from outside only what the CLI's package.json
 * lists, on metafiles esbuild writes for small entries.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import {
  dependencyProblems,
  missingFromCli,
  packageOf,
} from '../../scripts/bundle-dependencies.js';

const ROOT = join(import.meta.dirname, '../..');

async function metafileOf(source: string, external: string[]) {
  const result = await build({
    stdin: { contents: source, resolveDir: ROOT, sourcefile: 'entry.ts', loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    external,
    logLevel: 'silent',
  });
  return [{ name: 'entry.js', metafile: result.metafile }];
}

describe("the bundles' dependencies", () => {
  it('names the package of a module path or an import', () => {
    expect(packageOf('node_modules/yaml/dist/index.js')).toBe('yaml');
    expect(packageOf('node_modules/a/node_modules/@scope/b/x.js')).toBe('@scope/b');
    expect(packageOf('undici')).toBe('undici');
    expect(packageOf('@inquirer/select')).toBe('@inquirer/select');
    expect(packageOf('ajv/dist/runtime/ucs2length')).toBe('ajv');
    expect(packageOf('./local.js')).toBeUndefined();
    expect(packageOf('core-slice:@data/core?slice=x')).toBeUndefined();
  });

  it('passes what the CLI lists, left outside, and node modules', async () => {
    const bundles = await metafileOf(
      "import 'node:fs'; import { Agent } from 'undici'; export const load = () => import('@data/hub'); export { Agent };",
      ['undici', '@data/hub'],
    );
    expect(
      dependencyProblems(bundles, {
        dependencies: { undici: '^8' },
        peerDependencies: { '@data/hub': '0.1.0' },
      }),
    ).toEqual([]);
  });

  it('fails an import of a package the CLI does not list', async () => {
    const bundles = await metafileOf("export { Agent } from 'undici';", ['undici']);
    expect(dependencyProblems(bundles, { dependencies: {} })).toEqual([
      'entry.js: imports undici, which packages/cli/package.json does not list: add it to its dependencies',
    ]);
  });

  it('fails a package bundled in only because the CLI does not list it', async () => {
    const bundles = await metafileOf("export { parse } from 'yaml';", []);
    expect(dependencyProblems(bundles, { dependencies: {} })).toEqual([
      'entry.js: bundles yaml in, which packages/cli/package.json does not list: add it to its dependencies',
    ]);
  });

  it("fails a bundle that holds the hub's modules", async () => {
    const bundles = await metafileOf(
      `export { hubLog } from ${JSON.stringify(join(ROOT, 'packages/hub/src/logger.ts'))};`,
      [],
    );
    expect(dependencyProblems(bundles, {}).join('\n')).toMatch(
      /^entry\.js: holds packages\/hub\/src\/logger\.ts, a module of the hub/,
    );
  });

  it("fails a dependency of core's that the CLI does not list, bundles or not", () => {
    const core = { dependencies: { re2js: '^2', yaml: '^2' } };
    expect(missingFromCli(core, { dependencies: { re2js: '^2', yaml: '^2', ora: '^9' } })).toEqual(
      [],
    );
    expect(missingFromCli(core, { dependencies: { yaml: '^2' } })).toEqual([
      '@data/core depends on re2js, which packages/cli/package.json does not list: add it to its dependencies',
    ]);
  });
});
