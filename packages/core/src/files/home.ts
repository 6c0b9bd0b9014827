import { homedir } from 'node:os';
import { join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The user's home folder: HOME, else the system's record of the user; none for a user the
 * system has no record of (a container run under an arbitrary user id, with no HOME).
 */
function homeFolder(env: Env): string | undefined {
  if (env.HOME) return env.HOME;
  try {
    return homedir();
  } catch {
    return undefined;
  }
}

/**
 * One of data's folders, as XDG places it: the variable of data's own (DATA_CONFIG_DIR),
 * else data/ under the XDG variable (XDG_CONFIG_HOME), else under ~/<fallback> (.config);
 * none for a user with no home.
 */
export function dataFolder(
  env: Env,
  own: string,
  xdg: string,
  fallback: string,
): string | undefined {
  const set = env[own] || (env[xdg] && join(env[xdg], 'data'));
  if (set) return set;
  const home = homeFolder(env);
  return home === undefined ? undefined : join(home, fallback, 'data');
}
