/**
 * `npm run package`: data as one executable file, dist/data, that needs no Node.js on the
 * machine: Node's single executable applications. esbuild bundles the CLI (CommonJS, as
 * the executable's main script must be) and the validation worker (a module, carried inside
 * as an asset); `node --experimental-sea-config` makes the blob, and postject puts it into a
 * copy of the Node.js 24 binary this project pins.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { coreSlices } from './core-slices.ts';

const ROOT = join(import.meta.dirname, '..');
const WORK = join(ROOT, '.sea');
const OUT = join(ROOT, 'dist', 'data');
const NODE = join(ROOT, 'node_modules', 'node', 'bin', 'node');
const version = (
  JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** A module whose import fails in the bundle, saying it is not part of it. */
function withoutModule(name: string): Plugin {
  return {
    name: `without ${name}`,
    setup(bundler) {
      bundler.onResolve({ filter: new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`) }, () => ({
        path: name,
        namespace: 'without',
      }));
      bundler.onLoad({ filter: /.*/, namespace: 'without' }, () => ({
        contents: `throw new Error(${JSON.stringify(`${name} is not part of the single executable`)});`,
        loader: 'js',
      }));
    },
  };
}

rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
mkdirSync(join(ROOT, 'dist'), { recursive: true });
const common = {
  bundle: true,
  platform: 'node' as const,
  target: 'node24',
  logLevel: 'error' as const,
  define: { DATA_VERSION: JSON.stringify(version) },
  // The workspace packages from their sources; the hub too, which `data serve` imports.
  conditions: ['source'],
  plugins: [coreSlices(ROOT)],
};
await build({
  ...common,
  stdin: {
    contents: "import { main } from './packages/cli/src/cli.ts';\nvoid main();\n",
    resolveDir: ROOT,
    loader: 'ts',
  },
  format: 'cjs',
  outfile: join(WORK, 'data.cjs'),
  // The table viewer's engine is a native library, which cannot ride inside the executable:
  // its import fails there, so that its hub pages tables in file order and says sorting,
  // filtering and searching are unavailable (the engine's typed answer when its module does
  // not load). Left external, the import would find the node_modules of the folder the
  // executable was built in, on that machine only.
  plugins: [...common.plugins, withoutModule('@duckdb/node-api')],
});
await build({
  ...common,
  entryPoints: [join(ROOT, 'packages/core/src/validator/worker.ts')],
  // Bundled CommonJS dependencies require Node's built-in modules; a module has no require.
  banner: {
    // Names of its own: the bundled modules import createRequire themselves.
    js: "import { createRequire as __seaCreateRequire } from 'node:module';\nconst require = __seaCreateRequire(process.execPath);",
  },
  format: 'esm',
  outfile: join(WORK, 'worker.mjs'),
});
writeFileSync(
  join(WORK, 'sea-config.json'),
  JSON.stringify({
    main: join(WORK, 'data.cjs'),
    output: join(WORK, 'data.blob'),
    assets: { 'worker.mjs': join(WORK, 'worker.mjs') },
    disableExperimentalSEAWarning: true,
  }),
);
execFileSync(NODE, ['--experimental-sea-config', join(WORK, 'sea-config.json')], {
  stdio: 'inherit',
});
rmSync(OUT, { force: true });
copyFileSync(NODE, OUT);
chmodSync(OUT, 0o755);
execFileSync(
  process.execPath,
  [
    join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js'),
    OUT,
    'NODE_SEA_BLOB',
    join(WORK, 'data.blob'),
    '--sentinel-fuse',
    'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
  ],
  { stdio: 'inherit' },
);
rmSync(WORK, { recursive: true, force: true });
process.stdout.write(`${OUT}\n`);
