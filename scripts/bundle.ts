/**
 * Run by `npm run build`, after tsc and the profiles, into dist/bundle:
 * - cli.cjs and worker.cjs, the CLI and the validation worker each as one script, which
 *   src/code-cache.ts runs under a code cache; the first line of each names a hash of the
 *   rest, the key of that cache;
 * - worker.js (src/worker-start.ts), which starts worker.cjs in a worker thread,
 *   and keychain-helper.js: modules the CLI starts by path, under the names it looks for.
 * Dependencies stay in node_modules, loaded as they are, and only when the code that imports
 * them first runs.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist', 'bundle');
const DESCRIPTOR = join(ROOT, 'dist', 'validator', 'descriptor');
const version = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

const common = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  packages: 'external',
  logLevel: 'error',
  define: { DATA_VERSION: JSON.stringify(version) },
} as const;

const DYNAMIC_IMPORT = /\bimport\(("[^"]+")\)/g;

/**
 * One script for code-cache.ts to run: its wrapper gives it __filename, and __import for the
 * dynamic imports of packages, which a script cannot make itself.
 */
async function scriptBundle(entry: string, name: string): Promise<void> {
  const result = await build({
    ...common,
    entryPoints: [entry],
    format: 'cjs',
    write: false,
    outfile: join(OUT, `${name}.cjs`),
    define: { ...common.define, 'import.meta.url': '__bundleUrl' },
    banner: { js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  });
  const code = (result.outputFiles[0]?.text ?? '').replace(DYNAMIC_IMPORT, '__import($1)');
  if (/\bimport\(/.test(code))
    throw new Error(`${name}.cjs: a dynamic import that is not of a package name is left`);
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  writeFileSync(join(OUT, `${name}.cjs`), `// bundle ${hash}\n${code}`);
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
await scriptBundle(join(ROOT, 'src', 'cli.ts'), 'cli');
await scriptBundle(join(ROOT, 'src', 'validator', 'worker.ts'), 'worker');
await build({
  ...common,
  entryPoints: {
    worker: join(ROOT, 'src', 'worker-start.ts'),
    'keychain-helper': join(ROOT, 'src', 'credentials', 'keychain-helper.ts'),
  },
  outdir: OUT,
  format: 'esm',
});
// The precompiled profiles are loaded beside the code that asks for them (ajv.ts), with the
// formats they require.
for (const file of ['profiles.compiled.cjs', 'formats.js'])
  copyFileSync(join(DESCRIPTOR, file), join(OUT, file));
