import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataFolder, UsageError } from '@data/core';

export type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_API = 'http://127.0.0.1:8080';

/** DATA_CONFIG_DIR, else XDG_CONFIG_HOME/data, else ~/.config/data; none without a home. */
const configDirIfAny = (env: Env): string | undefined =>
  dataFolder(env, 'DATA_CONFIG_DIR', 'XDG_CONFIG_HOME', '.config');

/** The folder for settings and the credential file, for the commands that write them. */
export function configDir(env: Env): string {
  const dir = configDirIfAny(env);
  if (dir === undefined)
    throw new UsageError(
      'this user has no home folder, so data has nowhere to keep settings and sign-ins',
      'set HOME, or DATA_CONFIG_DIR to a folder of yours',
    );
  return dir;
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
  // Without a folder for settings there are none: the flags, the environment or the default.
  const dir = configDirIfAny(env);
  const settings = dir === undefined ? {} : readSettings(dir);
  const api = origin(flags.api ?? env.DATA_API ?? settings.api ?? DEFAULT_API, 'the API address');
  const siteValue = flags.site ?? env.DATA_SITE ?? settings.site;
  return { api, site: siteValue ? origin(siteValue, 'the site address') : api };
}
