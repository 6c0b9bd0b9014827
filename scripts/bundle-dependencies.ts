/**
 * What the CLI's bundles take from outside them must be what its package.json lists: the
 * bundles hold core, whose dependencies are loaded from node_modules as they are, and an install
 * of the CLI alone (its packed tarball) has only what the CLI lists. Without this check, a package
 * core starts to use would be found in the workspace's node_modules by every build and test here,
 * and be missing from the first install of the CLI alone.
 *
 * From esbuild's metafiles of the bundles:
 * - each package the bundles leave outside (an import that stays an import) must be among the
 *   CLI's dependencies, or its optional peer the hub (node's own modules aside);
 * - each package whose code is bundled in must be one of those meant to be (BUNDLED_IN): any
 *   other was bundled only because the CLI does not list it, so that EXTERNAL missed it;
 * - and no module of the hub's is in a bundle.
 * And each dependency of core's package.json must be one of the CLI's: core also loads some
 * by `createRequire` when first used (re2js), which no metafile shows.
 */
import { isBuiltin } from 'node:module';
import type { Metafile } from 'esbuild';

/** The dependencies that every command loads, bundled in whole (see bundle.ts). */
export const BUNDLED_WHOLE = ['commander', 'fastest-levenshtein'];

/** Packages whose code is bundled in on purpose: those, and ajv's one runtime helper. */
export const BUNDLED_IN = [...BUNDLED_WHOLE, 'ajv'];

export interface CliManifest {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The package a module path or an import specifier belongs to, or undefined for none. */
export function packageOf(path: string): string | undefined {
  const inside = path.lastIndexOf('node_modules/');
  const specifier = inside >= 0 ? path.slice(inside + 'node_modules/'.length) : path;
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.includes(':'))
    return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Each problem found, as a sentence naming the bundle and what to do; none when all is well. */
export function dependencyProblems(
  bundles: readonly { name: string; metafile: Metafile }[],
  manifest: CliManifest,
): string[] {
  const listed = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const problems = new Set<string>();
  for (const { name, metafile } of bundles) {
    for (const output of Object.values(metafile.outputs))
      for (const { path, external } of output.imports) {
        if (!external || isBuiltin(path)) continue;
        const wanted = packageOf(path);
        if (wanted !== undefined && !listed.has(wanted))
          problems.add(
            `${name}: imports ${wanted}, which packages/cli/package.json does not list: add it to its dependencies`,
          );
      }
    for (const input of Object.keys(metafile.inputs)) {
      if (/(^|\/)packages\/hub\//.test(input))
        problems.add(`${name}: holds ${input}, a module of the hub, which the CLI only imports`);
      if (!input.includes('node_modules/')) continue;
      const inside = packageOf(input);
      if (inside !== undefined && !BUNDLED_IN.includes(inside))
        problems.add(
          `${name}: bundles ${inside} in, which packages/cli/package.json does not list: add it to its dependencies`,
        );
    }
  }
  return [...problems];
}

/** Core's dependencies that the CLI, which bundles core, does not list. */
export function missingFromCli(core: CliManifest, cli: CliManifest): string[] {
  return Object.keys(core.dependencies ?? {})
    .filter((name) => !(name in (cli.dependencies ?? {})))
    .map(
      (name) =>
        `@data/core depends on ${name}, which packages/cli/package.json does not list: add it to its dependencies`,
    );
}
