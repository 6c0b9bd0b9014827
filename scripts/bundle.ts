/**
 * Run by `npm run build`, after tsc and the profiles, into dist/bundle:
 * - cli.cjs, the CLI in one script, which src/start.ts compiles with a code cache of its own;
 *   its first line names a hash of the rest, the key of that cache;
 * - worker.js and its chunks, the validation worker, and keychain-helper.js: modules started
 *   by path from the CLI, each kept beside it under the name the CLI looks for.
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

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

// A script run by src/start.ts: its wrapper gives it __filename, and __import for the
// dynamic imports of packages (a script has no module loader of its own).
const cli = await build({
  ...common,
  entryPoints: [join(ROOT, 'src', 'cli.ts')],
  format: 'cjs',
  write: false,
  outfile: join(OUT, 'cli.cjs'),
  define: { ...common.define, 'import.meta.url': '__bundleUrl' },
  banner: { js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
});
const DYNAMIC_IMPORT = /\bimport\(("[^"]+")\)/g;
const code = (cli.outputFiles[0]?.text ?? '').replace(DYNAMIC_IMPORT, '__import($1)');
if (/\bimport\(/.test(code))
  throw new Error('cli.cjs: a dynamic import that is not of a package name is left');
const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
writeFileSync(join(OUT, 'cli.cjs'), `// bundle ${hash}\n${code}`);

await build({
  ...common,
  entryPoints: { worker: join(ROOT, 'src', 'validator', 'worker.ts') },
  outdir: OUT,
  splitting: true,
  format: 'esm',
  chunkNames: 'worker-[name]-[hash]',
});
await build({
  ...common,
  entryPoints: { 'keychain-helper': join(ROOT, 'src', 'credentials', 'keychain-helper.ts') },
  outdir: OUT,
  format: 'esm',
});
// The precompiled profiles are loaded beside the code that asks for them (ajv.ts), with the
// formats they require.
for (const file of ['profiles.compiled.cjs', 'formats.js'])
  copyFileSync(join(DESCRIPTOR, file), join(OUT, file));
