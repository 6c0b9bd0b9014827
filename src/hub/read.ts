import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Hub } from './context.js';
import type { Request } from './http.js';
import { published, resourceAtPath, resourceFile, type Published } from './published.js';
import { sendFile } from './send-file.js';

type Pick = (pkg: Published) => { path: string; name: string };

/** Sends one file of a visible, published revision; `pick` says which. */
async function serve(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  name: string,
  pick: Pick,
): Promise<void> {
  const found = pick(published(hub, request, owner, name));
  await sendFile(request.raw, response, found.path, { name: found.name });
}

const stored =
  (file: string): Pick =>
  (pkg) => ({ path: join(pkg.dir, file), name: file });

export const descriptor = (
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  name: string,
): Promise<void> => serve(hub, request, response, owner, name, stored('datapackage.json'));

export const report = (
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  name: string,
): Promise<void> => serve(hub, request, response, owner, name, stored('validation_report.json'));

/** `/r/<file name>` or `/r/<index>.<extension>`. */
export const resource = (
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  name: string,
  file: string,
): Promise<void> => serve(hub, request, response, owner, name, (pkg) => resourceFile(pkg, file));

/** A resource at its relative path under the dataset, as descriptors with relative paths need. */
export const resourcePath = (
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  name: string,
  path: string,
): Promise<void> => serve(hub, request, response, owner, name, (pkg) => resourceAtPath(pkg, path));
