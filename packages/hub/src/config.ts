import { readFileSync } from 'node:fs';
import { unknownKeyProblem } from '@data/core';
import {
  DEFAULT_CAPS,
  DEFAULT_LIMITS,
  DEFAULT_VIEWER,
  type HubCaps,
  type HubLimits,
  type ViewerOptions,
} from './options.js';
import { gitHubProvider } from './engines/providers/github.js';
import { oidcProvider } from './engines/providers/oidc.js';
import type { Provider } from './engines/providers/types.js';
import type { RunnerOptions } from './services/pipeline/runner.js';
import { TOKEN_DAYS_LIMIT } from './services/named-tokens.js';
import { issuerProblem } from './services/trusted-publishing.js';

/** The hub configuration file is wrong: what is wrong, and where. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface HubConfig {
  providers: Provider[];
  fetchHosts?: string[];
  limits?: Partial<HubLimits>;
  publicUrl?: string;
  devSignIn?: boolean;
  /** The metadata database; a secret, since its URL may carry a password. */
  database?: string;
  /** Where files go: a folder, file://… or s3://bucket[/prefix]?endpoint=…&region=…&path_style=true */
  storage?: string;
  pipeline?: RunnerOptions;
  /** MB the cache of derived copies made when asked for may keep. */
  derivedCacheMb?: number;
  /** Days a named token may live at most (365 when not set). */
  maxTokenDays?: number;
  /** What one user may make (`maxOrganisationsPerUser`, … at the top of the file). */
  caps?: HubCaps;
  logFormat?: 'text' | 'json';
  /** `/metrics`: on or off, and the bearer token that reads it (a secret). */
  metrics?: { enabled?: boolean; token?: string };
  /** The OpenID issuers whose ID tokens trusted publishing takes (https; http on loopback). */
  trustedIssuers?: string[];
  /** The table viewer's engine: memory, threads, queries at once and waiting, their time, cache. */
  viewer?: Partial<ViewerOptions>;
}

type Env = Record<string, string | undefined>;

/** The keys the file's top level takes: any other is a mistake, named at start. */
const TOP_KEYS: readonly string[] = [
  'providers',
  'fetchHosts',
  'limits',
  'publicUrl',
  'devSignIn',
  'database',
  'storage',
  'pipeline',
  'derivedCacheMb',
  'maxTokenDays',
  ...Object.keys(DEFAULT_CAPS),
  'logFormat',
  'metrics',
  'trustedIssuers',
  'viewer',
];

/**
 * Refuses a key the hub does not take, naming it, the near one it may have meant and the
 * keys it takes: a misspelt cap or limit would otherwise leave its default in force unseen.
 */
function knownKeys(where: string, value: Record<string, unknown>, known: readonly string[]) {
  const problem = unknownKeyProblem(value, known, where, 'setting');
  if (problem !== undefined) throw new ConfigError(problem);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A secret is written in the file, or named: `{"env": "NAME"}` reads an environment
 * variable, `{"file": "/run/secrets/x"}` a file (its trailing newline dropped). Secrets are
 * never part of an error message.
 */
function secret(where: string, value: unknown, env: Env): string {
  if (typeof value === 'string' && value !== '') return value;
  if (isObject(value) && typeof value.env === 'string') {
    const found = env[value.env];
    if (!found) throw new ConfigError(`${where}: the environment variable ${value.env} is not set`);
    return found;
  }
  if (isObject(value) && typeof value.file === 'string') {
    try {
      return readFileSync(value.file, 'utf8').replace(/\r?\n$/, '');
    } catch {
      throw new ConfigError(`${where}: cannot read the file ${value.file}`);
    }
  }
  throw new ConfigError(`${where}: give the secret as a string, {"env": NAME} or {"file": PATH}`);
}

function text(where: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new ConfigError(`${where} must be a string`);
  return value;
}

function provider(name: string, value: unknown, env: Env): Provider {
  const where = `providers.${name}`;
  if (!/^[a-z0-9][a-z0-9_-]{0,30}$/.test(name) || name === 'local')
    throw new ConfigError(
      `${where}: a provider name is lower-case letters, digits, "-", "_" (and not "local")`,
    );
  if (!isObject(value)) throw new ConfigError(`${where} must be an object`);
  if (value.type !== 'oidc' && value.type !== 'github')
    throw new ConfigError(`${where}.type must be "oidc" or "github"`);
  const extra = value.type === 'oidc' ? ['issuer', 'scopes'] : ['url', 'apiUrl'];
  knownKeys(where, value, ['type', 'clientId', 'clientSecret', ...extra]);
  const clientId = text(`${where}.clientId`, value.clientId);
  const clientSecret = secret(`${where}.clientSecret`, value.clientSecret, env);
  if (value.type === 'oidc')
    return oidcProvider(name, {
      issuer: text(`${where}.issuer`, value.issuer),
      clientId,
      clientSecret,
      ...(Array.isArray(value.scopes) ? { scopes: value.scopes.map(String) } : {}),
    });
  if (value.type === 'github')
    return gitHubProvider(name, {
      clientId,
      clientSecret,
      ...(typeof value.url === 'string' ? { url: value.url } : {}),
      ...(typeof value.apiUrl === 'string' ? { apiUrl: value.apiUrl } : {}),
    });
  throw new ConfigError(`${where}.type must be "oidc" or "github"`);
}

function limits(value: unknown): Partial<HubLimits> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new ConfigError('limits must be an object');
  knownKeys('limits', value, Object.keys(DEFAULT_LIMITS));
  const result: Partial<HubLimits> = {};
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof HubLimits)[]) {
    const number = value[key];
    if (number === undefined) continue;
    if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1)
      throw new ConfigError(`limits.${key} must be a whole number above 0`);
    result[key] = number;
  }
  return result;
}

function wholeNumber(key: 'derivedCacheMb', value: unknown): { derivedCacheMb?: number } {
  if (value === undefined) return {};
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new ConfigError(`${key} must be a whole number of MB`);
  return { [key]: value };
}

function maxTokenDays(value: unknown): { maxTokenDays?: number } {
  if (value === undefined) return {};
  if (
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    value < 1 ||
    value > TOKEN_DAYS_LIMIT
  )
    throw new ConfigError(
      `maxTokenDays must be a whole number of days from 1 to ${String(TOKEN_DAYS_LIMIT)} (ten years)`,
    );
  return { maxTokenDays: value };
}

/** The caps on what one user may make, each a whole number above 0, the others their defaults. */
function caps(parsed: Record<string, unknown>): { caps?: HubCaps } {
  const keys = Object.keys(DEFAULT_CAPS) as (keyof HubCaps)[];
  if (keys.every((key) => parsed[key] === undefined)) return {};
  const result: HubCaps = { ...DEFAULT_CAPS };
  for (const key of keys) {
    const value = parsed[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
      throw new ConfigError(`${key} must be a whole number above 0`);
    result[key] = value;
  }
  return { caps: result };
}

const PIPELINE_KEYS = { leaseSeconds: 'leaseMs', pollSeconds: 'pollMs', workers: 'slots' } as const;

/** `pipeline`: seconds a claimed revision's lease lasts, seconds between looks, workers. */
function pipeline(value: unknown): RunnerOptions {
  if (value === undefined) return {};
  if (!isObject(value)) throw new ConfigError('pipeline must be an object');
  knownKeys('pipeline', value, Object.keys(PIPELINE_KEYS));
  const result: RunnerOptions = {};
  for (const [key, option] of Object.entries(PIPELINE_KEYS)) {
    const number = value[key];
    if (number === undefined) continue;
    if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0)
      throw new ConfigError(`pipeline.${key} must be a number above 0`);
    result[option] = option === 'slots' ? Math.ceil(number) : number * 1000;
  }
  return result;
}

/** Reads the hub configuration file (JSON). */
export function readHubConfig(path: string, env: Env): HubConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(
      `cannot read the hub configuration ${path}: ${error instanceof SyntaxError ? error.message : 'no such file, or not readable'}`,
    );
  }
  if (!isObject(parsed)) throw new ConfigError('the hub configuration must be a JSON object');
  knownKeys('the hub configuration', parsed, TOP_KEYS);
  const providers = parsed.providers ?? {};
  if (!isObject(providers)) throw new ConfigError('providers must be an object of named providers');
  const fetchHosts = parsed.fetchHosts;
  if (
    fetchHosts !== undefined &&
    (!Array.isArray(fetchHosts) || fetchHosts.some((host) => typeof host !== 'string'))
  )
    throw new ConfigError('fetchHosts must be a list of host names');
  return {
    providers: Object.entries(providers).map(([name, value]) => provider(name, value, env)),
    ...(fetchHosts ? { fetchHosts: fetchHosts as string[] } : {}),
    limits: limits(parsed.limits),
    ...wholeNumber('derivedCacheMb', parsed.derivedCacheMb),
    ...maxTokenDays(parsed.maxTokenDays),
    ...caps(parsed),
    ...(typeof parsed.publicUrl === 'string' ? { publicUrl: parsed.publicUrl } : {}),
    ...(typeof parsed.devSignIn === 'boolean' ? { devSignIn: parsed.devSignIn } : {}),
    ...(parsed.pipeline === undefined ? {} : { pipeline: pipeline(parsed.pipeline) }),
    ...(parsed.database === undefined
      ? {}
      : { database: secret('database', parsed.database, env) }),
    ...(parsed.storage === undefined ? {} : { storage: text('storage', parsed.storage) }),
    ...(parsed.metrics === undefined ? {} : { metrics: metricsConfig(parsed.metrics, env) }),
    ...(parsed.logFormat === undefined ? {} : { logFormat: logFormat(parsed.logFormat) }),
    ...(parsed.trustedIssuers === undefined
      ? {}
      : { trustedIssuers: trustedIssuers(parsed.trustedIssuers) }),
    ...(parsed.viewer === undefined ? {} : { viewer: viewerConfig(parsed.viewer) }),
  };
}

/** `viewer`: the table viewer's engine, each a whole number above 0, the others their defaults. */
function viewerConfig(value: unknown): Partial<ViewerOptions> {
  if (!isObject(value)) throw new ConfigError('viewer must be an object');
  knownKeys('viewer', value, Object.keys(DEFAULT_VIEWER));
  const result: Partial<ViewerOptions> = {};
  for (const key of Object.keys(DEFAULT_VIEWER) as (keyof ViewerOptions)[]) {
    const number = value[key];
    if (number === undefined) continue;
    if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1)
      throw new ConfigError(`viewer.${key} must be a whole number above 0`);
    result[key] = number;
  }
  return result;
}

/** `trustedIssuers`: each an https URL, or http on loopback, as its tokens' `iss` says it. */
function trustedIssuers(value: unknown): string[] {
  if (!Array.isArray(value) || value.some((issuer) => typeof issuer !== 'string'))
    throw new ConfigError(
      'trustedIssuers must be a list of issuer URLs, e.g. ["https://token.actions.githubusercontent.com"]',
    );
  for (const issuer of value as string[]) {
    const problem = issuerProblem(issuer);
    if (problem !== undefined) throw new ConfigError(`trustedIssuers: ${problem}`);
  }
  return value as string[];
}

function logFormat(value: unknown): 'text' | 'json' {
  if (value !== 'text' && value !== 'json')
    throw new ConfigError('logFormat must be "text" or "json"');
  return value;
}

function metricsConfig(value: unknown, env: Env): { enabled?: boolean; token?: string } {
  if (!isObject(value)) throw new ConfigError('metrics must be an object: {"enabled", "token"}');
  knownKeys('metrics', value, ['enabled', 'token']);
  if (value.enabled !== undefined && typeof value.enabled !== 'boolean')
    throw new ConfigError('metrics.enabled must be true or false');
  return {
    ...(value.enabled === undefined ? {} : { enabled: value.enabled }),
    ...(value.token === undefined ? {} : { token: secret('metrics.token', value.token, env) }),
  };
}
