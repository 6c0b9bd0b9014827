import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '../../bin/data');

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  /** The most memory the process has held so far (its peak resident set), in MB. */
  peakMb(): number;
  stop(): Promise<number | null>;
}

/**
 * `data serve` as a process of its own, on a free loopback port unless given one; in the
 * test's environment unless given one.
 */
export function startServe(
  args: string[],
  port = 0,
  options: { env?: Record<string, string>; cwd?: string; executable?: string } = {},
): Promise<ServeProcess> {
  // bin/data with this Node.js, or an executable that is data itself (npm run package's).
  const [program, ...before] = options.executable ? [options.executable] : [process.execPath, BIN];
  const child = spawn(program, [...before, 'serve', '--port', String(port), ...args], {
    env: options.env ?? { ...process.env, NO_COLOR: '1' },
    cwd: options.cwd,
  });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url)
        resolve({
          child,
          url,
          peakMb: () => {
            const status = readFileSync(`/proc/${String(child.pid)}/status`, 'utf8');
            return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
          },
          stop: () =>
            new Promise((stopped) => {
              if (child.exitCode !== null) stopped(child.exitCode);
              child.on('exit', (code) => stopped(code));
              child.kill('SIGINT');
            }),
        });
    });
    child.on('exit', (code) => reject(new Error(`data serve exited with ${String(code)}: ${err}`)));
  });
}
