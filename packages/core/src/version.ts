import { readFileSync } from 'node:fs';

/** Set when the build bundles data (scripts/bundle.ts, scripts/package.ts). */
declare const DATA_VERSION: string | undefined;

/** data's version: the bundle's, or package.json's beside the built or source files. */
export function version(): string {
  if (typeof DATA_VERSION === 'string') return DATA_VERSION;
  const manifest = JSON.parse(
    readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  return manifest.version;
}

/** The question scripts ask most often, answered before anything else is loaded. */
export function asksVersion(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V');
}

/** Whether this Node.js is older than data needs (22.19). */
export function nodeTooOld(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major < 22 || (major === 22 && minor < 19);
}
