import { makeDirectorySync, writeFileAtomicSync } from '@data/core';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { singleExecutable } from '@data/core';
import { configDir, type Env } from '../config/settings.js';
import { tokenText } from './token-text.js';

export interface Profile {
  id: string;
  username: string;
  name?: string;
  email?: string;
}

export interface Credential {
  token: string;
  profile: Profile | undefined;
}

export interface Found extends Credential {
  /**
   * Where the token came from, for `data whoami`; `trusted`: given by the hub for a CI job's
   * ID token, to publish one dataset (never stored).
   */
  source: 'env' | 'keychain' | 'file' | 'trusted';
  location: string;
}

const SERVICE = 'data-cli';
const KEYCHAIN_MS = 3000;

type Keychain = {
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
};

/**
 * The helper beside this module: compiled JavaScript, or TypeScript when run from source.
 * The single executable has neither (nor the keychain's native addon): tokens go to the file.
 */
function helper(): string {
  if (singleExecutable()) throw new Error('the single executable has no keychain helper');
  return fileURLToPath(
    new URL(
      import.meta.url.endsWith('.ts') ? './keychain-helper.ts' : './keychain-helper.js',
      import.meta.url,
    ),
  );
}

/** One keychain call in a helper process, killed when it does not answer in time. */
function inHelper(env: Env, request: Record<string, string>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // Loaded when first needed: with it, every command would start 2 ms later.
    const { spawn } = process.getBuiltinModule('node:child_process');
    const child = spawn(process.execPath, [helper()], {
      env,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), KEYCHAIN_MS);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      try {
        const reply = JSON.parse(output) as { ok: boolean; value?: unknown; error?: string };
        if (reply.ok) resolve(reply.value);
        else reject(new Error(reply.error ?? 'the keychain refused'));
      } catch {
        reject(new Error('the keychain did not answer'));
      }
    });
    child.stdin.end(JSON.stringify(request));
  });
}

function systemKeychain(env: Env): Keychain {
  const call = (request: Record<string, string>) => inHelper(env, { service: SERVICE, ...request });
  return {
    get: async (account) => {
      const value = await call({ op: 'get', account });
      return typeof value === 'string' ? value : undefined;
    },
    set: async (account, secret) => {
      await call({ op: 'set', account, secret });
    },
    delete: async (account) => (await call({ op: 'delete', account })) === true,
  };
}

/**
 * Tokens per hub origin: DATA_TOKEN first, then the OS keychain, then a 0600 file.
 * DATA_KEYCHAIN=0 turns the keychain off.
 */
export class CredentialStore {
  constructor(
    private readonly env: Env,
    private readonly keychain: () => Promise<Keychain> = () => Promise.resolve(systemKeychain(env)),
  ) {}

  /** Asked for only when the file is used: a user with no home can still use DATA_TOKEN. */
  private get file(): string {
    return join(configDir(this.env), 'credentials.json');
  }

  private get useKeychain(): boolean {
    return this.env.DATA_KEYCHAIN !== '0';
  }

  private readFile(): Record<string, Credential> {
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, Credential>;
    } catch {
      return {};
    }
  }

  private writeFile(entries: Record<string, Credential>): void {
    makeDirectorySync(configDir(this.env), 0o700);
    writeFileAtomicSync(this.file, `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600 });
  }

  async get(origin: string): Promise<Found | undefined> {
    if (this.env.DATA_TOKEN)
      return {
        token: tokenText(this.env.DATA_TOKEN, 'DATA_TOKEN'),
        profile: undefined,
        source: 'env',
        location: 'DATA_TOKEN',
      };
    return this.stored(origin);
  }

  /** The credential kept for the hub, whatever DATA_TOKEN says. */
  async stored(origin: string): Promise<Found | undefined> {
    if (this.useKeychain) {
      try {
        const secret = await (await this.keychain()).get(origin);
        if (secret)
          return {
            ...(JSON.parse(secret) as Credential),
            source: 'keychain',
            location: `OS keychain (${SERVICE})`,
          };
      } catch {
        // No keychain here: the file is the fallback.
      }
    }
    const entry = this.readFile()[origin];
    return entry ? { ...entry, source: 'file', location: this.file } : undefined;
  }

  /** Stores a credential; returns where, and a warning when it had to go to the file. */
  async set(
    origin: string,
    credential: Credential,
  ): Promise<{ location: string; warning?: string }> {
    if (this.useKeychain) {
      try {
        await (await this.keychain()).set(origin, JSON.stringify(credential));
        this.removeFromFile(origin);
        return { location: `OS keychain (${SERVICE})` };
      } catch {
        // fall through to the file
      }
    }
    this.writeFile({ ...this.readFile(), [origin]: credential });
    const why = this.useKeychain
      ? 'no OS keychain answered (DATA_KEYCHAIN=0 skips it)'
      : 'the OS keychain is turned off (DATA_KEYCHAIN=0)';
    return {
      location: this.file,
      warning: `${why}: the token is stored in ${this.file} (readable only by you)`,
    };
  }

  async delete(origin: string): Promise<boolean> {
    let removed = false;
    if (this.useKeychain) {
      try {
        removed = await (await this.keychain()).delete(origin);
      } catch {
        // nothing stored there
      }
    }
    return this.removeFromFile(origin) || removed;
  }

  private removeFromFile(origin: string): boolean {
    const entries = this.readFile();
    if (!(origin in entries)) return false;
    this.writeFile(Object.fromEntries(Object.entries(entries).filter(([key]) => key !== origin)));
    return true;
  }
}

/** The expiry of a JWT, read without verifying it, or undefined. */
export function tokenExpiry(token: string): Date | undefined {
  try {
    const claims = JSON.parse(
      Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as { exp?: unknown };
    return typeof claims.exp === 'number' ? new Date(claims.exp * 1000) : undefined;
  } catch {
    return undefined;
  }
}

/** Removes every occurrence of a secret from text that is about to be shown. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of secrets)
    if (secret && secret.length > 8) result = result.split(secret).join('[redacted]');
  return result.replace(/([?&]jwt=)[^&\s]+/g, '$1[redacted]');
}
