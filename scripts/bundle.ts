/**
 * Run by `npm run build`, after tsc and the profiles. First core's validation worker, from
 * core's sources alone, into packages/core/dist/bundle (bundle-core.ts: worker.cjs and
 * worker.js), where the hub's validation finds it. Then into packages/cli/dist/bundle:
 * - cli.cjs, the CLI (packages/cli/src/cli.ts) as one script, which core's code-cache.ts runs
 *   under a code cache; the first line names a hash of the rest, the key of that cache;
 * - cli-validate.cjs, the CLI with no other command than validate (OWN_BUNDLE), which
 *   packages/cli/src/start.ts runs for it;
 * - a copy of core's worker.cjs and worker.js, and keychain-helper.js: modules the CLI starts
 *   by path, under the names it looks for;
 * - and, over tsc's packages/cli/dist/start.js, packages/cli/src/start.ts with the modules it
 *   imports in one module (START).
 * @data/core is bundled in from its sources, through core-slices.ts, which links each import of
 * it to the modules defining the names it takes, so that lazy imports stay lazy. The hub stays
 * outside: `data serve` imports it when it is installed. Other dependencies stay in node_modules,
 * loaded as they are, and only when the code that imports them first runs; but BUNDLED_WHOLE
 * (commander and fastest-levenshtein), which every command loads, and the precompiled
 * descriptor profiles are bundled in, so that their code is in the cache too.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { OWN_BUNDLE } from '../packages/cli/src/own-bundles.ts';
import {
  ajvHelperInside,
  bundleCoreWorker,
  commonOptions,
  ROOT,
  scriptBundle,
} from './bundle-core.ts';
import {
  BUNDLED_WHOLE,
  dependencyProblems,
  missingFromCli,
  type CliManifest,
} from './bundle-dependencies.ts';
import { coreSlices } from './core-slices.ts';

const CLI = join(ROOT, 'packages', 'cli');
const CORE = join(ROOT, 'packages', 'core');
const OUT = join(CLI, 'dist', 'bundle');
const CORE_OUT = join(CORE, 'dist', 'bundle');
// The precompiled profiles, bundled in as DATA_PROFILES (validator/descriptor/ajv.ts).
const PROFILES_INJECT = join(CORE, 'dist', 'validator', 'descriptor', 'profiles-inject.js');
const manifest = JSON.parse(readFileSync(join(CLI, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

const common = commonOptions(manifest.version);

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

/** A script of the CLI's (cli.ts, alone or with only `command`), and its metafile noted. */
async function cliScript(name: string, command?: string): Promise<void> {
  const metafile = await scriptBundle({
    entry: join(CLI, 'src', 'cli.ts'),
    name,
    out: OUT,
    version: manifest.version,
    external: EXTERNAL,
    plugins: [
      coreSlices(ROOT),
      lazyChildProcessForCommander,
      ajvHelperInside,
      ...(command ? [onlyCommand(command)] : []),
    ],
    inject: PROFILES_INJECT,
  });
  metafiles.push({ name: `${name}.cjs`, metafile });
}

rmSync(OUT, { recursive: true, force: true });
rmSync(CORE_OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
mkdirSync(CORE_OUT, { recursive: true });
writeFileSync(
  PROFILES_INJECT,
  "import profiles from './profiles.compiled.cjs';\nexport { profiles as DATA_PROFILES };\n",
);
// The validation worker is core's, the CLI carries a copy: the hub needs only core's build.
metafiles.push(...(await bundleCoreWorker(CORE_OUT, PROFILES_INJECT)));
for (const name of ['worker.cjs', 'worker.js']) cpSync(join(CORE_OUT, name), join(OUT, name));
await cliScript('cli');
for (const command of OWN_BUNDLE) await cliScript(`cli-${command}`, command);
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
const keychainHelper = await build({
  ...common,
  entryPoints: [join(CLI, 'src', 'credentials', 'keychain-helper.ts')],
  outfile: join(OUT, 'keychain-helper.js'),
  external: EXTERNAL,
  plugins: [coreSlices(ROOT)],
  format: 'esm',
});
metafiles.push({ name: 'keychain-helper.js', metafile: keychainHelper.metafile });
const problems = [
  ...dependencyProblems(metafiles, manifest),
  ...missingFromCli(
    JSON.parse(readFileSync(join(CORE, 'package.json'), 'utf8')) as CliManifest,
    manifest,
  ),
];
if (problems.length > 0)
  throw new Error(`the bundles do not fit packages/cli/package.json:\n${problems.join('\n')}`);
