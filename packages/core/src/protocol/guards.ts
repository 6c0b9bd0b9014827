/**
 * Runtime guards for what a client reads from a hub (and what a hub reads from a client):
 * each says whether a JSON value is the protocol's type, so that an answer of another shape
 * is the reader's clear error rather than a crash further on. They check what the readers
 * use, and let extra properties pass (a newer hub may add some).
 */
import type {
  AuthCheck,
  Findability,
  FlowSpec,
  FlowState,
  FlowStatus,
  PipelineState,
  RevisionEntry,
  SearchResult,
} from './types.js';

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const optional = (value: unknown, check: (value: unknown) => boolean): boolean =>
  value === undefined || check(value);
const isText = (value: unknown): value is string => typeof value === 'string';
const isTexts = (value: unknown): value is string[] => Array.isArray(value) && value.every(isText);

export const FINDABILITIES: readonly Findability[] = ['published', 'unlisted', 'private'];
const FLOW_STATES: readonly string[] = ['QUEUED', 'INPROGRESS', 'SUCCEEDED', 'FAILED'];

export function isFindability(value: unknown): value is Findability {
  return FINDABILITIES.includes(value as Findability);
}

export function isFlowState(value: unknown): value is FlowState {
  return FLOW_STATES.includes(value as string);
}

/** Dataset names: letters, digits, `.`, `-` and `_`, starting with a letter or a digit. */
export const DATASET_NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/i;

/** The reasons a flow spec cannot be processed; empty when it can (then it is a FlowSpec). */
export function flowSpecErrors(body: unknown): string[] {
  if (!isObject(body)) return ['the flow spec must be a JSON object'];
  const errors: string[] = [];
  const meta = body.meta;
  if (!isObject(meta)) errors.push('"meta" must be an object');
  else {
    if (typeof meta.ownerid !== 'string') errors.push('"meta.ownerid" must be a string');
    if (typeof meta.dataset !== 'string' || !DATASET_NAME.test(meta.dataset))
      errors.push('"meta.dataset" must be a dataset name (letters, digits, ".", "-", "_")');
    if (meta.findability !== undefined && !isFindability(meta.findability))
      errors.push('"meta.findability" must be published, unlisted or private');
  }
  const input = Array.isArray(body.inputs) ? (body.inputs[0] as unknown) : undefined;
  if (!isObject(input) || input.kind !== 'datapackage' || typeof input.url !== 'string') {
    errors.push('"inputs" must start with {"kind": "datapackage", "url": …}');
  } else if (
    !isObject(input.parameters) ||
    !isObject(input.parameters.descriptor) ||
    !isObject(input.parameters['resource-mapping'])
  ) {
    errors.push('"inputs[0].parameters" needs "descriptor" and "resource-mapping" objects');
  }
  return errors;
}

export function isFlowSpec(value: unknown): value is FlowSpec {
  return flowSpecErrors(value).length === 0;
}

function isPipelineState(value: unknown): value is PipelineState {
  return (
    isObject(value) &&
    isText(value.title) &&
    (isFlowState(value.status) || value.status === 'SKIPPED') &&
    optional(value.error_log, isTexts)
  );
}

export function isFlowStatus(value: unknown): value is FlowStatus {
  return (
    isObject(value) &&
    isText(value.id) &&
    isFlowState(value.state) &&
    isObject(value.pipelines) &&
    Object.values(value.pipelines).every(isPipelineState) &&
    isTexts(value.error_log)
  );
}

export function isAuthCheck(value: unknown): value is AuthCheck {
  return (
    isObject(value) &&
    typeof value.authenticated === 'boolean' &&
    optional(value.profile, isObject) &&
    optional(
      value.providers,
      (providers) =>
        isObject(providers) &&
        Object.values(providers).every((provider) => isObject(provider) && isText(provider.url)),
    ) &&
    optional(
      value.token,
      (token) =>
        isObject(token) &&
        isText(token.name) &&
        isText(token.scope) &&
        isTexts(token.datasets) &&
        isText(token.expires),
    )
  );
}

export function isSearchResult(value: unknown): value is SearchResult {
  return (
    isObject(value) &&
    isText(value.id) &&
    isText(value.name) &&
    optional(value.title, (title) => title === null || isText(title)) &&
    isObject(value.datahub) &&
    isText(value.datahub.owner) &&
    isText(value.datahub.findability) &&
    optional(value.datapackage, isObject)
  );
}

export function isRevisionEntry(value: unknown): value is RevisionEntry {
  return (
    isObject(value) &&
    typeof value.revision === 'number' &&
    isText(value.state) &&
    (value.findability === null || isText(value.findability)) &&
    typeof value.published === 'boolean' &&
    isText(value.created) &&
    isText(value.modified)
  );
}
