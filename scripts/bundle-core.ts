/**
 * Core's validation worker, bundled from core's sources alone into a folder of its own:
 * - worker.cjs, the worker (packages/core/src/validator/worker.ts) as one script, which
 *   packages/core/src/code-cache.ts runs under a code cache; its first line names a hash of the
 *   rest, the key of that cache;
 * - worker.js (packages/core/src/validator/worker-start.ts), the module a worker thread starts
 *   (validator/worker-url.ts), which runs worker.cjs so.
 * scripts/bundle.ts makes them into packages/core/dist/bundle, where the hub's validation finds
 * them with core's build alone, and copies them to the CLI's bundles; the tests' global setup
 * (test/helpers/from-sources.ts) makes them from the sources of the moment into the run's
 * temporary folder, so that the unit tests need no build.
 *
 * Also the means of making any such script, which scripts/bundle.ts uses for the CLI's.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { BUNDLED_WHOLE } from './bundle-dependencies.ts';

export const ROOT = join(import.meta.dirname, '..');
const CORE = join(ROOT, 'packages', 'core');

/** What every bundle of data is built with; `version` is DATA_VERSION (core's version.ts). */
export const commonOptions = (version: string) =>
  ({
    bundle: true,
    platform: 'node',
    target: 'node22',
    // The workspace packages are bundled from their TypeScript sources (their exports' `source`).
    conditions: ['source'],
    logLevel: 'error',
    define: { DATA_VERSION: JSON.stringify(version) },
    metafile: true,
  }) satisfies BuildOptions;

const DYNAMIC_IMPORT = /\bimport\(("[^"]+")\)/g;

/**
 * The descriptor profiles' one runtime helper from ajv, a function of 15 lines, bundled in:
 * required from node_modules, it took Node.js's search of the package at every start.
 */
export const ajvHelperInside: Plugin = {
  name: 'ajv-helper-inside',
  setup(plugin) {
    plugin.onResolve({ filter: /^ajv\/dist\/runtime\/ucs2length$/ }, (args) => ({
      path: createRequire(join(ROOT, 'package.json')).resolve(args.path),
    }));
  },
};

/**
 * The script with its characters past ASCII written as \u escapes: esbuild escapes them in
 * strings and names but not in regular expression literals (source.ts's /[ßæœøłđþ]/), and one
 * character past Latin-1 made V8 hold the whole 900 KB script as two bytes a character, which
 * Node.js also decodes more slowly: data validate examples/cities took 3% more CPU time
 * (median of 20 alternated pairs, 0.90-1.03, middle half 0.95-0.99). Such an escape means the
 * same character in a string, a name and an expression, with or without the u flag. A character
 * escaped with a backslash (`\ß`, an identity escape) would change meaning: the build stops.
 */
function asciiOnly(code: string, name: string): string {
  return code.replace(/(\\*)([^\0-\x7f])/g, (_, slashes: string, char: string) => {
    if (slashes.length % 2 === 1)
      throw new Error(`${name}.cjs: an escaped character past ASCII (\\${char}) is left`);
    return `${slashes}\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

export interface ScriptBundle {
  readonly entry: string;
  /** The script is `<out>/<name>.cjs`. */
  readonly name: string;
  readonly out: string;
  readonly version: string;
  /** The packages left outside, imported from node_modules when first used. */
  readonly external: readonly string[];
  readonly plugins: readonly Plugin[];
  /** A module whose exports are globals of the script (the precompiled profiles). */
  readonly inject?: string;
}

/**
 * One script for code-cache.ts to run: its wrapper gives it __filename, and __import for the
 * dynamic imports of packages, which a script cannot make itself. Returns esbuild's metafile.
 */
export async function scriptBundle(options: ScriptBundle): Promise<Metafile> {
  const { entry, name, out, version, external, plugins, inject } = options;
  const common = commonOptions(version);
  const result = await build({
    ...common,
    external: [...external],
    entryPoints: [entry],
    format: 'cjs',
    // V8 reads the whole source even when the cache holds its code, so a smaller script
    // starts sooner. Names stay: stack traces name their functions, though not their lines.
    minifyWhitespace: true,
    write: false,
    outfile: join(out, `${name}.cjs`),
    define: { ...common.define, 'import.meta.url': '__bundleUrl' },
    ...(inject ? { inject: [inject] } : {}),
    plugins: [...plugins],
    banner: { js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  });
  const code = asciiOnly(
    (result.outputFiles[0]?.text ?? '').replace(DYNAMIC_IMPORT, '__import($1)'),
    name,
  );
  if (/\bimport\(/.test(code))
    throw new Error(`${name}.cjs: a dynamic import that is not of a package name is left`);
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  writeFileSync(join(out, `${name}.cjs`), `// bundle ${hash}\n${code}`);
  return result.metafile;
}

interface CoreManifest {
  readonly version: string;
  readonly dependencies: Record<string, string>;
}

const coreManifest = (): CoreManifest =>
  JSON.parse(readFileSync(join(CORE, 'package.json'), 'utf8')) as CoreManifest;

/**
 * Core's version (packages/core/package.json), which its bundles take as DATA_VERSION: the
 * worker's, and the modules the tests bundle from core's sources.
 */
export const coreVersion = (): string => coreManifest().version;

/**
 * worker.cjs and worker.js into `out` (which must exist), from core's sources only; `profiles`
 * is the module that injects the precompiled descriptor profiles, if any (without them, the
 * worker compiles them when first needed, as the sources do). Returns both metafiles.
 */
export async function bundleCoreWorker(
  out: string,
  profiles?: string,
): Promise<{ name: string; metafile: Metafile }[]> {
  const manifest = coreManifest();
  const external = Object.keys(manifest.dependencies).filter(
    (name) => !BUNDLED_WHOLE.includes(name),
  );
  const script = await scriptBundle({
    entry: join(CORE, 'src', 'validator', 'worker.ts'),
    name: 'worker',
    out,
    version: manifest.version,
    external,
    plugins: [ajvHelperInside],
    ...(profiles ? { inject: profiles } : {}),
  });
  const start = await build({
    ...commonOptions(manifest.version),
    entryPoints: [join(CORE, 'src', 'validator', 'worker-start.ts')],
    outfile: join(out, 'worker.js'),
    external,
    format: 'esm',
  });
  return [
    { name: 'worker.cjs', metafile: script },
    { name: 'worker.js', metafile: start.metafile },
  ];
}
