import { UsageError } from '@data/core';
import type * as HubPackage from '@data/hub';

/** The hub package's module, as loadHub() gives it. */
export type Hub = typeof HubPackage;

/**
 * The hub package, which the `serve` commands import when they run: it is an optional peer of
 * the CLI, so that an install of the CLI alone carries none of the hub's server dependencies
 * (the AWS SDK, pg, prom-client, openid-client…). In a clone, npm's workspaces link it.
 * Only the hub package itself missing is told as such: a module missing inside the hub is a
 * broken install, and goes on as the error it is.
 */
export async function loadHub(): Promise<Hub> {
  try {
    return await import('@data/hub');
  } catch (error) {
    if (hubMissing(error))
      throw new UsageError(
        'the hub is not installed: `data serve` needs the package @data/hub, which an install of data alone leaves out',
        "run data serve from a clone of data's repository (npm install, then npx data serve), where npm's workspaces link the hub in",
      );
    throw error;
  }
}

function hubMissing(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    code === 'ERR_MODULE_NOT_FOUND' &&
    typeof message === 'string' &&
    /^Cannot find (package|module) '@data\/hub'/.test(message)
  );
}
