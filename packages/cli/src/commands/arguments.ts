import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';

/** A commander parser for a positive number of some unit (seconds, minutes). */
export function positive(unit: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isFinite(number) || number <= 0)
      throw new InvalidArgumentError(`expected a number of ${unit}`);
    return number;
  };
}

/** A commander parser for a whole number, 0 included. */
export function whole(meaning = ''): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < 0)
      throw new InvalidArgumentError(`expected a whole number${meaning}`);
    return number;
  };
}

/** A commander parser for a whole number from 1 (days, items). */
export function counting(meaning = ''): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(number) || number < 1)
      throw new InvalidArgumentError(`expected a whole number${meaning}, 1 or more`);
    return number;
  };
}

/** A commander parser for a TCP port: 0 (any free port) to 65535. */
export function port(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || number > 65_535)
    throw new InvalidArgumentError('expected a port from 0 to 65535 (0: any free port)');
  return number;
}

/**
 * Where the hub keeps something: the flag, then its environment variable, then the
 * configuration file. An address (postgres://, s3://, file://) is taken as it is; a path is
 * from the folder the command runs in.
 */
export function locationOf(
  ...candidates: (string | undefined)[]
): (cwd: string) => string | undefined {
  const value = candidates.find((candidate) => candidate !== undefined);
  return (cwd) =>
    value === undefined || value === ''
      ? undefined
      : /^[a-z][a-z0-9+.-]*:\/\//i.test(value)
        ? value
        : resolve(cwd, value);
}

/** The hub a `data serve` subcommand works on, its places resolved: none means the default. */
export interface HubLocation {
  dataDir: string;
  database: string | undefined;
  storage: string | undefined;
}

/**
 * The `--data-dir`, `--database` and `--storage` of `data serve`, which its subcommands
 * (gc, backup, migrate-storage) take wherever they stand, with their environment variables.
 */
export function hubLocation(
  command: Command,
  io: { cwd: string; env: Readonly<Record<string, string | undefined>> },
): HubLocation {
  const options = command.parent?.opts<{ dataDir?: string; database?: string; storage?: string }>();
  return {
    dataDir: resolve(io.cwd, options?.dataDir ?? 'data-hub'),
    database: locationOf(options?.database, io.env.DATA_HUB_DATABASE)(io.cwd),
    storage: locationOf(options?.storage, io.env.DATA_HUB_STORAGE)(io.cwd),
  };
}
