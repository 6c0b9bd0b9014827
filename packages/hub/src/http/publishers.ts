/**
 * Ours: `/api/publishers/:owner/:dataset`, the trusted publishers of a dataset (`data
 * publisher add|list|remove`), and `POST /auth/trusted`, where a CI job trades its ID token
 * for a hub token that may publish one dataset. Listing, adding and removing a dataset's
 * publishers takes a caller who may publish it; the dataset need not exist yet.
 */
import type { ServerResponse } from 'node:http';
import { DATASET_NAME, type PublisherRecord, type TrustRefusal } from '@data/core';
import type { Hub } from '../context.js';
import { HttpError } from '../http-error.js';
import { may } from '../services/access.js';
import { managingRefusal } from '../services/named-tokens.js';
import {
  addPublisher,
  removePublisher,
  shownPublisher,
  tradeIdToken,
} from '../services/publishers.js';
import { TrustRefused } from '../services/trusted-publishing.js';
import { callerOf } from './callers.js';
import { isObject, readJson, sendCredential, sendJson, type Request } from './request.js';

/** Bytes of a body of these routes: an ID token is a few kilobytes. */
const BODY_BYTES = 64 * 1024;

/** The owner's id when the caller may publish the dataset; else the refusal that says why. */
async function publishable(
  hub: Hub,
  request: Request,
  owner: string,
  dataset: string,
): Promise<{ ownerid: string; userid: string }> {
  if (!DATASET_NAME.test(dataset)) throw new HttpError(400, `"${dataset}" is not a dataset name`);
  const caller = await callerOf(hub, request);
  if (!caller) throw new HttpError(401, 'sign in (data login) to manage trusted publishers');
  // A workflow's token publishes; letting it name other workflows would outlive its 15 minutes.
  if (caller.via === 'trusted')
    throw new HttpError(403, "a trusted publisher's token may not manage trusted publishers");
  // Nor a named token that only publishes: a publisher it added would publish on once the
  // token is revoked. Saying who may publish is managing, as making tokens is.
  const refusal = managingRefusal(caller, 'trusted publishers');
  if (refusal) throw new HttpError(403, refusal);
  const ownerid = (await hub.store.userByName(owner.toLowerCase()))?.userid;
  if (!ownerid || !(await may(hub.store.organisations, caller, 'publish', ownerid, dataset)))
    throw new HttpError(
      403,
      `you may not publish ${owner}/${dataset}, so you may not say who else may`,
    );
  return { ownerid, userid: caller.userid };
}

/** `GET /api/publishers/:owner/:dataset`: the dataset's trusted publishers, oldest first. */
export async function list(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  dataset: string,
): Promise<void> {
  const { ownerid } = await publishable(hub, request, owner, dataset);
  const publishers = await hub.store.publishers.list(ownerid, dataset);
  const shown: PublisherRecord[] = [];
  for (const publisher of publishers) shown.push(await shownPublisher(hub.store, owner, publisher));
  sendJson(response, 200, shown);
}

/** `POST /api/publishers/:owner/:dataset` `{issuer, claims}`: 201 with the new publisher. */
export async function add(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  dataset: string,
): Promise<void> {
  const { ownerid, userid } = await publishable(hub, request, owner, dataset);
  const body = await readJson(request, BODY_BYTES);
  if (!isObject(body)) throw new HttpError(400, 'send {"issuer", "claims"}');
  const { publisher, added } = await addPublisher(hub, hub.idTokens, {
    ownerid,
    dataset,
    issuer: body.issuer,
    claims: body.claims,
    by: userid,
  });
  sendJson(response, added ? 201 : 200, await shownPublisher(hub.store, owner, publisher));
}

/** `DELETE /api/publishers/:owner/:dataset/:id`: the publisher removed, or 404. */
export async function remove(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  dataset: string,
  id: string,
): Promise<void> {
  const { ownerid } = await publishable(hub, request, owner, dataset);
  const removed = await removePublisher(hub.store, ownerid, dataset, id);
  if (!removed)
    throw new HttpError(404, `${owner}/${dataset} has no trusted publisher ${JSON.stringify(id)}`);
  sendJson(response, 200, await shownPublisher(hub.store, owner, removed));
}

/**
 * `POST /auth/trusted` `{token, dataset}`: an ID token traded for a hub token that may
 * publish one dataset for fifteen minutes; or a refusal naming the check that failed.
 */
export async function trade(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  try {
    const body = await readJson(request, BODY_BYTES);
    sendCredential(response, 200, await tradeIdToken(hub, body, request.id));
  } catch (error) {
    if (!(error instanceof TrustRefused)) throw error;
    if (error.status === 502)
      hub.log(`trusted publishing: ${error.message}`, { level: 'warn', requestId: request.id });
    sendJson(response, error.status, {
      error: error.message,
      check: error.check,
    } satisfies TrustRefusal);
  }
}
