/**
 * What the tests with clients nobody here wrote share: a program they need (skipped without
 * it, failed without it under CI), small packages, publication to a hub.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { publish, waitForState } from '../hub/helpers.js';

/**
 * Whether the tests that run `program` run: when it is installed, and always under CI, where
 * a missing program fails them.
 */
export function runs(program: string): boolean {
  return existsSync(program) || Boolean(process.env.CI);
}

/** Loopback ports free now, all different (each held until all are found). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  const ports: number[] = [];
  for (const server of servers) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports.push((server.address() as { port: number }).port);
  }
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export async function freePort(): Promise<number> {
  const [port = 0] = await freePorts(1);
  return port;
}

/** Whether something accepts connections on a loopback port. */
export function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

export interface Finished {
  code: number | null;
  out: string;
  err: string;
}

/** Runs a program to its end, in a folder, without a proxy from the environment. */
export function runProgram(
  program: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Finished> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !/^(https?|all|no)_proxy$/i.test(key)) env[key] = value;
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: { ...env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: -1, out, err: err + String(error) }));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

export interface Table {
  name: string;
  fields: { name: string; type: string }[];
  rows: string[][];
}

/**
 * A package of CSV tables in a new folder, its descriptor listing each with its schema. With
 * another delimiter than a comma, the hub makes their CSV copies when first asked for.
 */
export function writePackage(
  name: string,
  tables: Table[],
  options: { delimiter?: string } = {},
): string {
  const delimiter = options.delimiter ?? ',';
  const dir = mkdtempSync(join(tmpdir(), 'data-interop-'));
  mkdirSync(join(dir, 'data'));
  for (const table of tables) {
    const lines = [table.fields.map((field) => field.name), ...table.rows];
    writeFileSync(
      join(dir, 'data', `${table.name}.csv`),
      lines.map((line) => `${line.join(delimiter)}\n`).join(''),
    );
  }
  const resources = tables.map((table) => ({
    name: table.name,
    path: `data/${table.name}.csv`,
    format: 'csv',
    ...(delimiter === ',' ? {} : { dialect: { delimiter } }),
    schema: { fields: table.fields },
  }));
  writeFileSync(join(dir, 'datapackage.json'), JSON.stringify({ name, resources }));
  return dir;
}

/** Publishes a package folder as ada's and waits until the hub has it. */
export async function published(
  base: string,
  jwt: string,
  dir: string,
  options: { findability?: string; dataset?: string } = {},
): Promise<void> {
  const { flowId } = await publish(base, jwt, dir, options);
  const state = await waitForState(base, flowId, jwt);
  expect(state.error_log).toEqual([]);
  expect(state.state).toBe('SUCCEEDED');
}

/** The rows of a table of people, revision by revision: revision 2 changes the ages. */
export function people(revision: number, count = 3): Table {
  return {
    name: 'people',
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'name', type: 'string' },
      { name: 'age', type: 'integer' },
    ],
    rows: Array.from({ length: count }, (_, i) => [
      String(i + 1),
      `person ${String(i + 1)}`,
      String(20 + i + 100 * (revision - 1)),
    ]),
  };
}
