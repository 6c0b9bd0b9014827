/**
 * Run by `npm run build`, after tsc and the profiles, into packages/cli/dist/bundle:
 * - cli.cjs and worker.cjs, the CLI (packages/cli/src/cli.ts) and the validation worker
 *   (packages/core/src/validator/worker.ts) each as one script, which
 *   packages/cli/src/code-cache.ts runs under a code cache; the first line of each names a hash
 *   of the rest, the key of that cache;
 * - cli-validate.cjs, the CLI with no other command than validate (OWN_BUNDLE), which
 *   packages/cli/src/start.ts runs for it;
 * - worker.js (packages/cli/src/worker-start.ts), which starts worker.cjs in a worker thread,
 *   and keychain-helper.js: modules the CLI starts by path, under the names it looks for;
 * - and, over tsc's packages/cli/dist/start.js, packages/cli/src/start.ts with the modules it
 *   imports in one module (START).
 * @data/core is bundled in from its sources, through core-slices.ts, which links each import of
 * it to the modules defining the names it takes, so that lazy imports stay lazy. The hub stays
 * outside: `data serve` imports it when it is installed. Other dependencies stay in node_modules,
 * loaded as they are, and only when the code that imports them first runs; but BUNDLED_WHOLE
 * (commander and fastest-levenshtein), which every command loads, and the precompiled
 * descriptor profiles are bundled in, so that their code is in the cache too. worker.cjs and
 * worker.js are also copied to packages/core/dist/bundle, where the hub's validation finds them.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { OWN_BUNDLE } from '../packages/cli/src/own-bundles.ts';
import {
  BUNDLED_WHOLE,
  dependencyProblems,
  missingFromCli,
  type CliManifest,
} from './bundle-dependencies.ts';
import { coreSlices } from './core-slices.ts';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'packages', 'cli');
const CORE = join(ROOT, 'packages', 'core');
const OUT = join(CLI, 'dist', 'bundle');
const DESCRIPTOR = join(CORE, 'dist', 'validator', 'descriptor');
const manifest = JSON.parse(readFileSync(join(CLI, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  // The workspace packages are bundled from their TypeScript sources (their exports' `source`).
  conditions: ['source'] as string[],
  logLevel: 'error',
  define: { DATA_VERSION: JSON.stringify(manifest.version) },
  metafile: true,
} as const;

/** What each bundle holds and imports, checked against the CLI's package.json at the end. */
const metafiles: { name: string; metafile: Metafile }[] = [];

/**
 * The hub is a package of its own, which `data serve` imports when it is installed; the CLI's
 * bundles never hold it.
 */
const EXTERNAL = [
  ...Object.keys(manifest.dependencies).filter((name) => !BUNDLED_WHOLE.includes(name)),
  '@data/hub',
];

const DYNAMIC_IMPORT = /\bimport\(("[^"]+")\)/g;

/**
 * commander imports node:child_process at its top, for subcommands that are programs of their
 * own, which `data` has none of; loading it (with net, dgram and their streams) cost every
 * command about 4 ms of a 35 ms bare Node.js start. Its import is bundled as a stand-in that
 * loads the module when commander first reaches into it.
 */
const lazyChildProcessForCommander: Plugin = {
  name: 'lazy-child-process-for-commander',
  setup(plugin) {
    plugin.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer)
        ? { path: 'child_process', namespace: 'lazy-builtin' }
        : undefined,
    );
    plugin.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, () => ({
      contents:
        'module.exports = new Proxy({}, { get: (_, key) => require("node:child_process")[key] });',
      loader: 'js',
    }));
  },
};

/**
 * The descriptor profiles' one runtime helper from ajv, a function of 15 lines, bundled in:
 * required from node_modules, it took Node.js's search of the package at every start.
 */
const ajvHelperInside: Plugin = {
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

/** In a bundle of one command, the others' modules (commands/index.ts imports them) are left out. */
function onlyCommand(command: string): Plugin {
  return {
    name: 'only-command',
    setup(plugin) {
      plugin.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (args) =>
        args.kind === 'dynamic-import' &&
        /[\\/]commands[\\/]index\.ts$/.test(args.importer) &&
        args.path !== `./${command}.js`
          ? { path: args.path, namespace: 'other-command' }
          : undefined,
      );
      plugin.onLoad({ filter: /.*/, namespace: 'other-command' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is not in the bundle of ${command}`)});`,
        loader: 'js',
      }));
    },
  };
}

/**
 * One script for code-cache.ts to run: its wrapper gives it __filename, and __import for the
 * dynamic imports of packages, which a script cannot make itself.
 */
async function scriptBundle(entry: string, name: string, command?: string): Promise<void> {
  const result = await build({
    ...common,
    external: EXTERNAL,
    entryPoints: [entry],
    format: 'cjs',
    // V8 reads the whole source even when the cache holds its code, so a smaller script
    // starts sooner. Names stay: stack traces name their functions, though not their lines.
    minifyWhitespace: true,
    write: false,
    outfile: join(OUT, `${name}.cjs`),
    define: { ...common.define, 'import.meta.url': '__bundleUrl' },
    inject: [PROFILES_INJECT],
    plugins: [
      coreSlices(ROOT),
      lazyChildProcessForCommander,
      ajvHelperInside,
      ...(command ? [onlyCommand(command)] : []),
    ],
    banner: { js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  });
  metafiles.push({ name: `${name}.cjs`, metafile: result.metafile });
  const code = asciiOnly(
    (result.outputFiles[0]?.text ?? '').replace(DYNAMIC_IMPORT, '__import($1)'),
    name,
  );
  if (/\bimport\(/.test(code))
    throw new Error(`${name}.cjs: a dynamic import that is not of a package name is left`);
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  writeFileSync(join(OUT, `${name}.cjs`), `// bundle ${hash}\n${code}`);
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
// The precompiled profiles, bundled in as DATA_PROFILES (validator/descriptor/ajv.ts).
const PROFILES_INJECT = join(DESCRIPTOR, 'profiles-inject.js');
writeFileSync(
  PROFILES_INJECT,
  "import profiles from './profiles.compiled.cjs';\nexport { profiles as DATA_PROFILES };\n",
);
await scriptBundle(join(CLI, 'src', 'cli.ts'), 'cli');
for (const command of OWN_BUNDLE)
  await scriptBundle(join(CLI, 'src', 'cli.ts'), `cli-${command}`, command);
await scriptBundle(join(CORE, 'src', 'validator', 'worker.ts'), 'worker');
rmSync(PROFILES_INJECT);
/**
 * What bin/data imports first, one module where tsc's were seven, each of which Node.js
 * resolves, reads and links apart: data validate examples/cities took 4% fewer instructions
 * (189.7 against 197.5 million, callgrind, medians of 6 runs). At the place of tsc's, so that
 * it finds dist/bundle where tsc's did; tsc's map of it is removed, as it no longer fits.
 */
const START = join(CLI, 'dist', 'start.js');
const start = await build({
  ...common,
  entryPoints: [join(CLI, 'src', 'start.ts')],
  external: EXTERNAL,
  plugins: [coreSlices(ROOT)],
  outfile: START,
  format: 'esm',
  allowOverwrite: true,
});
rmSync(`${START}.map`, { force: true });
metafiles.push({ name: 'start.js', metafile: start.metafile });
const modules = await build({
  ...common,
  entryPoints: {
    worker: join(CLI, 'src', 'worker-start.ts'),
    'keychain-helper': join(CLI, 'src', 'credentials', 'keychain-helper.ts'),
  },
  outdir: OUT,
  external: EXTERNAL,
  plugins: [coreSlices(ROOT)],
  format: 'esm',
});
/**
 * The validation worker beside core's compiled modules too, where validator/worker-url.ts
 * looks for it when the hub runs them (its package imports core's, not the CLI's bundle).
 */
for (const name of ['worker.cjs', 'worker.js'])
  cpSync(join(OUT, name), join(CORE, 'dist', 'bundle', name));
metafiles.push({ name: 'worker.js and keychain-helper.js', metafile: modules.metafile });
const problems = [
  ...dependencyProblems(metafiles, manifest),
  ...missingFromCli(
    JSON.parse(readFileSync(join(CORE, 'package.json'), 'utf8')) as CliManifest,
    manifest,
  ),
];
if (problems.length > 0)
  throw new Error(`the bundles do not fit packages/cli/package.json:\n${problems.join('\n')}`);
