/**
 * `data login` hands the sign-in address a hub names to the system opener only when it is an
 * http or https address: a hub naming file:, smb: or javascript: has it printed, not opened.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../helpers/cli.js';

const opener = vi.hoisted(() => ({ opened: [] as unknown[], then: (): unknown => undefined }));
// The system opener: what it was given is recorded, nothing is opened.
vi.mock('open', () => ({
  default: (target: unknown) => {
    opener.opened.push(target);
    opener.then();
    return Promise.resolve();
  },
}));
const opened = opener.opened;

afterEach(() => {
  opened.length = 0;
  opener.then = () => undefined;
});

/** A hub whose only sign-in provider is at `address`. */
async function hubNaming(address: unknown) {
  const server = createServer((request, response) => {
    if (request.url?.startsWith('/auth/check'))
      response
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ authenticated: false, providers: { only: { url: address } } }));
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function login(api: string, signal?: AbortSignal) {
  return runCli(['login'], { env: { DATA_API: api }, ...(signal ? { signal } : {}) });
}

describe('data login', () => {
  it.each([
    'file:///etc/passwd',
    'smb://attacker.example/share/run.exe',
    'javascript:alert(1)',
    'FILE:///C:/Windows/System32/calc.exe',
    '/auth/login/local',
    'file:///tmp/\u001b[2J\u001b]8;;https://evil.example\u0007x',
  ])('prints a sign-in address that is not http(s), and does not open it: %j', async (address) => {
    const hub = await hubNaming(address);
    try {
      const result = await login(hub.url);
      expect(opened).toEqual([]);
      expect(result.code).toBe(3);
      expect(result.err).toContain(
        'error: the hub named a sign-in address that is not http or https, and data did not open it: ',
      );
      expect(result.err).toContain('hint: data opens only http and https addresses');
      // Shown as written, its control characters as escapes.
      expect(result.err.replaceAll('\n', '')).not.toMatch(/\p{Cc}/u);
      if (/\p{Cc}/u.test(address))
        expect(result.err).toContain('file:///tmp/\\x1b[2J\\x1b]8;;https://evil.example\\x07x\n');
      else expect(result.err).toContain(`: ${address}\n`);
    } finally {
      await hub.close();
    }
  });

  it('refuses a provider without an address as a string', async () => {
    const hub = await hubNaming({ href: 'file:///etc/passwd' });
    try {
      const result = await login(hub.url);
      expect(opened).toEqual([]);
      expect(result.code).toBe(3);
    } finally {
      await hub.close();
    }
  });

  it('opens an https sign-in address', async () => {
    const hub = await hubNaming('https://id.example.org/authorize?client_id=data');
    const stop = new AbortController();
    try {
      // The opener is where a person would sign in; here the test stops the wait for them.
      opener.then = () => stop.abort('SIGINT');
      const result = await login(hub.url, stop.signal);
      expect(opened).toEqual(['https://id.example.org/authorize?client_id=data']);
      expect(result.code).toBe(130);
      expect(result.err).toContain(
        'Sign in at:\n  https://id.example.org/authorize?client_id=data',
      );
    } finally {
      await hub.close();
    }
  });
});
