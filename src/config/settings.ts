import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

export type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_API = 'http://127.0.0.1:8080';

/** The folder for settings and the credential file: DATA_CONFIG_DIR, else XDG, else ~/.config/data. */
export function configDir(env: Env): string {
  if (env.DATA_CONFIG_DIR) return env.DATA_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'data');
}

interface Settings {
  api?: string;
  site?: string;
}

function readSettings(dir: string): Settings {
  let text: string;
  try {
    text = readFileSync(join(dir, 'config.json'), 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed !== null && typeof parsed === 'object' ? parsed : {};
  } catch {
    throw new UsageError(`the settings file ${join(dir, 'config.json')} is not valid JSON`);
  }
}

function origin(value: string, what: string): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
    return url.href.replace(/\/+$/, '');
  } catch {
    throw new UsageError(`${what} "${value}" is not an http(s) URL`);
  }
}

export interface HubAddress {
  /** API gateway: /auth, /rawstore, /source, /metastore. */
  api: string;
  /** Read endpoints: /<owner>/<dataset>/…; the API base unless set. */
  site: string;
}

/** --api/--site, then DATA_API/DATA_SITE, then the settings file, then the local hub. */
export function hubAddress(
  flags: { api?: string | undefined; site?: string | undefined },
  env: Env,
): HubAddress {
  const settings = readSettings(configDir(env));
  const api = origin(flags.api ?? env.DATA_API ?? settings.api ?? DEFAULT_API, 'the API address');
  const siteValue = flags.site ?? env.DATA_SITE ?? settings.site;
  return { api, site: siteValue ? origin(siteValue, 'the site address') : api };
}
