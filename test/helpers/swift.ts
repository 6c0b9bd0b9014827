import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { stopWhenEnding } from './stop-when-ending.js';
import { freePort } from './postgres.ts';

/** The tempauth account of the tests, as S3 credentials: access key `account:user`. */
export const SWIFT_CREDENTIALS = { accessKeyId: 'test:tester', secretAccessKey: 'testing' };
export const TEST_BUCKET = 'data-test';

export function swiftInstalled(): boolean {
  return existsSync('/usr/bin/swift-proxy-server') && existsSync('/usr/bin/swift-ring-builder');
}

export interface RunningSwift {
  /** The S3 endpoint of the proxy: http://127.0.0.1:<port> */
  endpoint: string;
  stop(): void;
}

const SERVERS = ['account', 'container', 'object'] as const;

/** What every server of the test Swift shares: loopback, one process, its folder, no syslog. */
function defaults(dir: string, port: number): string {
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${String(port)}
workers = 0
user = ${userInfo().username}
swift_dir = ${dir}
log_level = WARNING
log_address = ${join(dir, 'no-syslog')}
`;
}

function serverConf(dir: string, server: string, port: number): string {
  return `${defaults(dir, port)}devices = ${join(dir, 'srv')}
mount_check = false

[pipeline:main]
pipeline = ${server}-server

[app:${server}-server]
use = egg:swift#${server}
`;
}

/**
 * The proxy with the s3api middleware and tempauth. There is no memcached: tempauth only
 * needs a cache object for Swift tokens, and S3 requests are signed, not tokened.
 */
function proxyConf(dir: string, port: number): string {
  return `${defaults(dir, port)}
[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache s3api tempauth slo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin

[filter:s3api]
use = egg:swift#s3api
location = us-east-1

# s3api makes a multipart upload a static large object.
[filter:slo]
use = egg:swift#slo

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:1
`;
}

async function healthy(endpoint: string, processes: ChildProcess[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const dead = processes.find((child) => child.exitCode !== null);
    if (dead) throw new Error(`a Swift server stopped at start (exit ${String(dead.exitCode)})`);
    const ok = await fetch(`${endpoint}/healthcheck`)
      .then((response) => response.ok)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error('Swift did not answer within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * OpenStack Swift from Debian's packages as an S3-compatible store of its own: one proxy
 * (s3api, tempauth) and one account, container and object server on loopback ports, rings
 * of one device, everything in a temporary folder; with the tests' bucket made.
 */
export async function startSwift(): Promise<RunningSwift> {
  const dir = mkdtempSync(join(tmpdir(), 'data-swift-'));
  mkdirSync(join(dir, 'srv', 'd1'), { recursive: true });
  writeFileSync(
    join(dir, 'swift.conf'),
    '[swift-hash]\nswift_hash_path_suffix = data-test\nswift_hash_path_prefix = data-test\n\n[storage-policy:0]\nname = Policy-0\ndefault = yes\n',
  );
  const processes: ChildProcess[] = [];
  // Stopped even when the run is ended by a signal while Swift is starting.
  let keepLog = false;
  const stop = stopWhenEnding(() => {
    for (const child of processes) child.kill('SIGKILL');
    if (!keepLog) rmSync(dir, { recursive: true, force: true });
  });
  const log = openSync(join(dir, 'swift.log'), 'a');
  const run = (program: string, conf: string) => {
    processes.push(
      spawn(`/usr/bin/swift-${program}-server`, [conf], {
        cwd: dir,
        stdio: ['ignore', log, log],
      }),
    );
  };
  try {
    for (const server of SERVERS) {
      const port = await freePort();
      const builder = join(dir, `${server}.builder`);
      const ring = (...args: string[]) =>
        execFileSync('swift-ring-builder', [builder, ...args], { stdio: 'pipe' });
      ring('create', '6', '1', '1');
      ring('add', `r1z1-127.0.0.1:${String(port)}/d1`, '100');
      ring('rebalance');
      const conf = join(dir, `${server}-server.conf`);
      writeFileSync(conf, serverConf(dir, server, port));
      run(server, conf);
    }
    const proxyPort = await freePort();
    writeFileSync(join(dir, 'proxy-server.conf'), proxyConf(dir, proxyPort));
    run('proxy', join(dir, 'proxy-server.conf'));
    const endpoint = `http://127.0.0.1:${String(proxyPort)}`;
    await healthy(endpoint, processes);
    const client = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: SWIFT_CREDENTIALS,
    });
    await client.send(new CreateBucketCommand({ Bucket: TEST_BUCKET }));
    client.destroy();
    return { endpoint, stop };
  } catch (error) {
    keepLog = true;
    stop();
    throw new Error(`Swift did not start; its log is in ${dir}`, { cause: error });
  }
}
