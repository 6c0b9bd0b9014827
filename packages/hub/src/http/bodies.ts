/**
 * The one place that says which fields each JSON body the hub takes may have. readJson asks
 * it for every body: a field a route does not take is refused (400) with its name, the field
 * it may have been meant for and those the route takes, where it would otherwise be dropped
 * unseen (`"dataset"` for `"datasets"` made a token for every dataset, `"claim"` for
 * `"claims"` a publisher with no claims). A route that reads JSON and is not listed here is
 * the hub's fault, found by the first request (and by the test of every route).
 *
 * The old DataHub client's routes take any field: its versions send fields this hub does
 * not read (`metadata.name` at /rawstore/authorize, which the old store needed; `data push
 * --schedule`'s schedule in the flow spec), and it may not be broken (docs/protocol.md,
 * "Fields a body does not take").
 */
import {
  unknownKeyProblem,
  type PublisherRequest,
  type TokenRequest,
  type TrustedRequest,
} from '@data/core';
import { HttpError } from '../http-error.js';
import type { PATTERNS, FIXED_ROUTES } from '../routes.js';

type Route = (typeof FIXED_ROUTES)[number] | (typeof PATTERNS)[number];

/** What a route's JSON body may hold: its fields, or any (an old client's route). */
interface BodyRule {
  /** The top-level fields the route takes, or 'any'. */
  readonly fields: readonly string[] | 'any';
  /** An empty body reads as `{}` (a body whose every field may be left out). */
  readonly mayBeEmpty?: boolean;
}

const ANY: BodyRule = { fields: 'any' };

/**
 * The fields of a body core types (protocol/), every one of them: a field added to the type
 * and not here fails the typecheck, so that the hub never refuses what its client sends.
 */
function allOf<T>() {
  return <K extends readonly (keyof T & string)[]>(
    ...keys: K & ([keyof T] extends [K[number]] ? unknown : never)
  ): readonly string[] => keys;
}

export const JSON_BODIES: Partial<Record<Route, BodyRule>> = {
  // The old DataHub client's: it sends more than this hub reads.
  'POST /rawstore/authorize': ANY,
  'POST /source/upload': ANY,
  // This project's: only `data` and scripts written against docs/protocol.md send them.
  'POST /auth/token': { fields: ['code', 'code_verifier'] },
  'POST /auth/trusted': { fields: allOf<TrustedRequest>()('token', 'dataset') },
  'POST /rawstore/uploads': { fields: ['md5'], mayBeEmpty: true },
  'POST /api/tokens': {
    fields: allOf<TokenRequest>()('name', 'scope', 'datasets', 'expires_days'),
  },
  'POST /api/orgs': { fields: ['name'] },
  'PUT /api/orgs/:org/members/:user': { fields: ['role'] },
  'POST /api/publishers/:owner/:dataset': { fields: allOf<PublisherRequest>()('issuer', 'claims') },
};

/** The rule of the route a request took: its method and template (`request.route`). */
export function bodyRule(method: string, route: string): BodyRule {
  const rule = (JSON_BODIES as Partial<Record<string, BodyRule>>)[`${method} ${route}`];
  if (rule === undefined)
    throw new Error(`${method} ${route} reads JSON, but bodies.ts has no rule for it`);
  return rule;
}

/** Refuses a body's field its route does not take; a body not an object is the route's to refuse. */
export function checkFields(method: string, route: string, rule: BodyRule, body: unknown): void {
  if (rule.fields === 'any' || body === null || typeof body !== 'object' || Array.isArray(body))
    return;
  const problem = unknownKeyProblem(body, rule.fields, `the body of ${method} ${route}`, 'field');
  if (problem !== undefined) throw new HttpError(400, problem);
}
