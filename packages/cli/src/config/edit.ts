import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '@data/core';
import { makeDirectorySync, writeFileAtomicSync } from '@data/core';
import { didYouMean } from '@data/core';
import { configDir, type Env } from './settings.js';

/** The settings a user may keep, each with what it means and how its value is checked. */
export const SETTINGS: Record<string, { meaning: string; check: (value: string) => string }> = {
  api: {
    meaning: 'the hub API address (as --api, DATA_API)',
    check: (value) => httpUrl(value, 'api'),
  },
  site: {
    meaning: 'the hub site for read URLs (as --site, DATA_SITE; default: the API)',
    check: (value) => httpUrl(value, 'site'),
  },
};

function httpUrl(value: string, key: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href.replace(/\/+$/, '');
  } catch {
    // said below
  }
  throw new UsageError(`${key} must be an http(s) URL, not "${value}"`);
}

export function settingsFile(env: Env): string {
  return join(configDir(env), 'config.json');
}

function read(env: Env): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(settingsFile(env), 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // said below
  }
  throw new UsageError(
    `the settings file ${settingsFile(env)} is not a JSON object`,
    'fix or remove it',
  );
}

/** Writes the whole file anew, then moves it in place: a crash leaves the old one whole. */
function write(env: Env, settings: Record<string, unknown>): void {
  makeDirectorySync(configDir(env), 0o700);
  writeFileAtomicSync(settingsFile(env), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
}

export function knownKey(key: string): string {
  if (key in SETTINGS) return key;
  const guess = didYouMean(key, Object.keys(SETTINGS));
  throw new UsageError(
    `there is no setting "${key}"${guess ? `: did you mean ${guess}?` : ''}`,
    `settings: ${Object.keys(SETTINGS).join(', ')}`,
  );
}

export function getSetting(env: Env, key: string): string | undefined {
  const value = read(env)[knownKey(key)];
  return typeof value === 'string' ? value : undefined;
}

export function setSetting(env: Env, key: string, value: string): string {
  const checked = SETTINGS[knownKey(key)]?.check(value) ?? value;
  write(env, { ...read(env), [key]: checked });
  return checked;
}

export function unsetSetting(env: Env, key: string): boolean {
  const settings = read(env);
  if (!(knownKey(key) in settings)) return false;
  const { [key]: _removed, ...rest } = settings;
  write(env, rest);
  return true;
}

export function listSettings(env: Env): Record<string, string> {
  const settings = read(env);
  return Object.fromEntries(
    Object.keys(SETTINGS).flatMap((key) =>
      typeof settings[key] === 'string' ? [[key, settings[key]]] : [],
    ),
  );
}
