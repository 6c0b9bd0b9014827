import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Hub } from './context.js';
import type { Request } from './http.js';
import { published, resourceAtPath, resourceFile } from './published.js';
import { sendFile } from './send-file.js';

export async function descriptor(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  name: string,
): Promise<void> {
  const pkg = published(hub, request, owner, name);
  await sendFile(request.raw, response, join(pkg.dir, 'datapackage.json'), {
    name: 'datapackage.json',
  });
}

export async function resource(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  name: string,
  file: string,
): Promise<void> {
  const pkg = published(hub, request, owner, name);
  const found = resourceFile(pkg, file);
  await sendFile(request.raw, response, found.path, { name: found.name });
}

export async function report(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  name: string,
): Promise<void> {
  const pkg = published(hub, request, owner, name);
  await sendFile(request.raw, response, join(pkg.dir, 'validation_report.json'), {
    name: 'validation_report.json',
  });
}

/** A resource at its relative path under the dataset, as descriptors with relative paths need. */
export async function resourcePath(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  owner: string,
  name: string,
  path: string,
): Promise<void> {
  const pkg = published(hub, request, owner, name);
  const found = resourceAtPath(pkg, path);
  await sendFile(request.raw, response, found.path, { name: found.name });
}
