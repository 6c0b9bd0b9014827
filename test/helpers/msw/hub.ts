/**
 * The hub the in-process command tests talk to through msw: its address, which no socket
 * answers, and the user it knows. Each API area keeps its handlers in a file of its own
 * (auth.ts, publish.ts, reads.ts), as wrangler's tests do; a test adds the ones it needs
 * with `server.use(…)`, and variants (refusals, outages) take their place for one test.
 */
export const HUB = 'http://hub.test';

export interface TestProfile {
  id: string;
  username: string;
  name?: string;
  email?: string;
}

/** The user every handler speaks of unless told otherwise. */
export const ADA: TestProfile = {
  id: 'u1',
  username: 'ada',
  name: 'Ada',
  email: 'ada@example.org',
};
