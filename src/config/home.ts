import { homedir } from 'node:os';

/**
 * The user's home folder: HOME, else the system's record of the user; none for a user the
 * system has no record of (a container run under an arbitrary user id, with no HOME).
 */
export function homeFolder(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.HOME) return env.HOME;
  try {
    return homedir();
  } catch {
    return undefined;
  }
}
