/**
 * The direction between the packages, as lint enforces it (eslint.config.js): each case is a
 * line of source (static imports and exports, type imports, import()) linted by ESLint's own
 * API as if it were in a package's folder. Type-aware rules are left out, as the fixtures are
 * in no TypeScript project; the import rules run as `npm run lint` runs them.
 */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

const eslint = new ESLint({
  cwd: ROOT,
  overrideConfig: [tseslint.configs.disableTypeChecked],
});

/** The rules that `source`, put in `file` (a path in the checkout), breaks. */
async function broken(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${source}\n`, { filePath: join(ROOT, file) });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

describe('imports across the packages', () => {
  it('lets each package import another by its name, from its index', async () => {
    expect(
      await broken('packages/cli/src/commands/x.ts', "export { UsageError } from '@data/core';"),
    ).toEqual([]);
    expect(
      await broken('packages/cli/src/commands/x.ts', "export type { Hub } from '@data/hub';"),
    ).toEqual([]);
    expect(
      await broken('packages/hub/src/services/x.ts', "export { UsageError } from '@data/core';"),
    ).toEqual([]);
    expect(
      await broken('packages/core/src/x.ts', "export { UsageError } from './errors.js';"),
    ).toEqual([]);
  });

  it("refuses a relative path into another package's folder", async () => {
    for (const [file, source] of [
      [
        'packages/cli/src/commands/x.ts',
        "export { UsageError } from '../../../core/src/errors.js';",
      ],
      ['packages/cli/src/x.ts', "import type { Hub } from '../../hub/src/context.js';"],
      ['packages/hub/src/x.ts', "export { send } from '../../core/src/http/http.js';"],
      ['packages/core/src/x.ts', "export { run } from '../../cli/src/cli.js';"],
    ] as [string, string][])
      expect(await broken(file, source), source).toContain('no-restricted-imports');
  });

  it('keeps the hub’s engines below its services, handlers and views', async () => {
    for (const source of [
      "import type { Keys } from '../../services/tokens.js';",
      "export { sendJson } from '../../http/request.js';",
      "import type { Page } from '../../views/layout.js';",
    ])
      expect(await broken('packages/hub/src/engines/metadata/x.ts', source), source).toContain(
        'no-restricted-imports',
      );
    expect(
      await broken(
        'packages/hub/src/engines/metadata/x.ts',
        "export type { Role } from '../../caller.js';",
      ),
    ).toEqual([]);
    expect(
      await broken(
        'packages/hub/src/services/x.ts',
        "export type { Metadata } from '../engines/metadata/types.js';",
      ),
    ).toEqual([]);
  });

  it('refuses a path past a package name', async () => {
    for (const [file, source] of [
      ['packages/hub/src/x.ts', "export { UsageError } from '@data/core/src/errors.js';"],
      ['packages/cli/src/x.ts', "export { startHub } from '@data/hub/dist/server.js';"],
      ['packages/hub/src/x.ts', "export { run } from 'data/dist/cli.js';"],
    ] as [string, string][])
      expect(await broken(file, source), source).toContain('no-restricted-imports');
  });

  it('refuses core importing the hub or the CLI, and the hub importing the CLI', async () => {
    for (const [file, source] of [
      ['packages/core/src/x.ts', "export { startHub } from '@data/hub';"],
      ['packages/core/src/validator/x.ts', "import type { Hub } from '@data/hub';"],
      ['packages/core/src/x.ts', "export { run } from 'data';"],
      ['packages/hub/src/x.ts', "export { run } from 'data';"],
    ] as [string, string][])
      expect(await broken(file, source), source).toContain('no-restricted-imports');
  });

  it('refuses a value imported statically from the hub in the CLI, but in serve-hub.ts', async () => {
    for (const source of [
      "import { startHub } from '@data/hub';",
      "export { startHub } from '@data/hub';",
      "import * as hub from '@data/hub';",
    ])
      expect(await broken('packages/cli/src/commands/serve.ts', source), source).toContain(
        '@typescript-eslint/no-restricted-imports',
      );
    expect(
      await broken('packages/cli/src/output/x.ts', "export type { GcReport } from '@data/hub';"),
    ).toEqual([]);
    expect(
      await broken(
        'packages/cli/src/commands/serve-hub.ts',
        "export { startHub } from '@data/hub';",
      ),
    ).toEqual([]);
  });

  it('holds import() to the same rules, which no-restricted-imports does not look at', async () => {
    expect(
      await broken(
        'packages/cli/src/commands/x.ts',
        "export const hub = () => import('@data/hub');",
      ),
    ).toEqual([]);
    expect(
      await broken(
        'packages/core/src/x.ts',
        "export const more = () => import('./validator/index.js');",
      ),
    ).toEqual([]);
    for (const [file, source] of [
      ['packages/cli/src/x.ts', "export const hub = () => import('../../hub/src/index.js');"],
      ['packages/hub/src/x.ts', "export const core = () => import('@data/core/src/errors.js');"],
      ['packages/core/src/x.ts', "export const hub = () => import('@data/hub');"],
      ['packages/core/src/x.ts', "export const cli = () => import('data');"],
      ['packages/hub/src/x.ts', "export const cli = () => import('data');"],
    ] as [string, string][])
      expect(await broken(file, source), source).toContain('no-restricted-syntax');
  });
});
