import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  timingSafeEqual,
  verify,
  type KeyObject,
} from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Metadata } from '../engines/metadata/types.js';

/** The hub's secrets, created on first start and kept in its database. */
export interface Keys {
  privateKey: KeyObject;
  publicPem: string;
  /** HMAC secret for upload policies and presigned object URLs. */
  secret: Buffer;
}

interface StoredKeys {
  privateKey: string;
  secret: string;
}

/**
 * The hub's signing keys, in the database, so that every hub process signs and verifies
 * with the same ones. Made by the first process to start; a hub that kept them in
 * `keys.json` in its data folder (before they moved) offers those, so tokens stay valid.
 */
export async function loadKeys(
  dataDir: string,
  store: Pick<Metadata, 'sharedValue'>,
): Promise<Keys> {
  const text = await store.sharedValue('signing-keys', () => {
    const file = join(dataDir, 'keys.json');
    if (existsSync(file)) return readFileSync(file, 'utf8');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const fresh: StoredKeys = {
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      secret: randomBytes(32).toString('hex'),
    };
    return JSON.stringify(fresh);
  });
  const stored = JSON.parse(text) as StoredKeys;
  const privateKey = createPrivateKey(stored.privateKey);
  return {
    privateKey,
    publicPem: createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString(),
    secret: Buffer.from(stored.secret, 'hex'),
  };
}

const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

export type Claims = Record<string, unknown> & { exp: number };

/** Signs claims as an RS256 JWT. */
export function signToken(keys: Keys, claims: Claims): string {
  const head = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const body = base64url(JSON.stringify(claims));
  const signature = sign('sha256', Buffer.from(`${head}.${body}`), keys.privateKey);
  return `${head}.${body}.${base64url(signature)}`;
}

/** The claims of a valid, unexpired token signed by this hub; undefined otherwise. */
export function verifyToken(keys: Keys, token: string, now = Date.now()): Claims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [head = '', body = '', signature = ''] = parts;
  try {
    const header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: unknown };
    if (header.alg !== 'RS256') return undefined;
    if (
      !verify(
        'sha256',
        Buffer.from(`${head}.${body}`),
        keys.privateKey,
        Buffer.from(signature, 'base64url'),
      )
    )
      return undefined;
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Claims;
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= now) return undefined;
    return claims;
  } catch {
    return undefined;
  }
}

export function hmac(keys: Keys, text: string): string {
  return createHmac('sha256', keys.secret).update(text).digest('hex');
}

export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
