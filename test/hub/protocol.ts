/** The hub protocol driven with fetch, as a browser and a client would: no project code. */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { UploadTarget } from '@data/core';

/** The hidden fields of a page's form, as a browser would send them. */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\s*\/?>/g))
    fields[match[1] ?? ''] = (match[2] ?? '').replace(/&amp;/g, '&').replace(/&quot;/g, '"');
  return fields;
}

/** The cookies a response sets, as one Cookie header. */
export function cookiesOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0] ?? '')
    .join('; ');
}

/**
 * Plays the browser on a sign-in page: reads the hub's form, posts it with the page's
 * cookie, as from the same origin, and returns the address the hub redirects to (the
 * client's listener, with the token or a code).
 */
export async function submitSignInForm(
  pageUrl: string,
  username: string,
  email: string,
): Promise<string> {
  const shown = await fetch(pageUrl);
  const html = await shown.text();
  const action = new URL(/method="post" action="([^"]+)"/.exec(html)?.[1] ?? '', pageUrl).href;
  const posted = await fetch(action, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: cookiesOf(shown),
      origin: new URL(pageUrl).origin,
    },
    body: new URLSearchParams({ ...hiddenFields(html), username, email }).toString(),
  });
  const location = posted.headers.get('location');
  if (posted.status !== 302 || !location)
    throw new Error(`login did not redirect: ${String(posted.status)} ${await posted.text()}`);
  return location;
}

/** Logs in through the hub's single sign-on the way a browser does, and returns the JWT. */
export async function browserLogin(
  base: string,
  username = 'ada',
  email = `${username}@example.org`,
): Promise<string> {
  let captured = '';
  const listener = createServer((request, response) => {
    captured = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.get('jwt') ?? '';
    response.end('You may close this page.');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  const next = `http://127.0.0.1:${String(typeof address === 'object' && address ? address.port : 0)}/callback`;
  try {
    const check = (await (
      await fetch(`${base}/auth/check?next=${encodeURIComponent(next)}`)
    ).json()) as { providers: { local: { url: string } } };
    await (await fetch(await submitSignInForm(check.providers.local.url, username, email))).text();
    return captured;
  } finally {
    listener.close();
  }
}

export async function serviceToken(
  base: string,
  jwt: string,
  service: 'rawstore' | 'source',
): Promise<{ token: string; userid: string }> {
  const response = await fetch(`${base}/auth/authorize?service=${service}`, {
    headers: { 'Auth-Token': jwt },
  });
  return (await response.json()) as { token: string; userid: string };
}

export function md5Base64(bytes: Buffer): string {
  return createHash('md5').update(bytes).digest('base64');
}

export interface LocalPackage {
  descriptor: Record<string, unknown> & {
    name: string;
    resources: { name: string; path: string }[];
  };
  files: Map<string, Buffer>;
}

export function readPackage(dir: string): LocalPackage {
  const descriptor = JSON.parse(
    readFileSync(join(dir, 'datapackage.json'), 'utf8'),
  ) as LocalPackage['descriptor'];
  const files = new Map<string, Buffer>([
    ['datapackage.json', readFileSync(join(dir, 'datapackage.json'))],
  ]);
  for (const resource of descriptor.resources) {
    // A remote resource is the hub's to fetch.
    if (typeof resource.path === 'string' && !/^https?:\/\//.test(resource.path))
      files.set(relative('.', resource.path), readFileSync(join(dir, resource.path)));
  }
  return { descriptor, files };
}

export interface AuthorizeReply {
  filedata: Record<string, UploadTarget>;
}

export async function authorizeUploads(
  base: string,
  rawstore: { token: string; userid: string },
  files: Map<string, Buffer>,
  findability = 'published',
  methods?: string[],
  /** The dataset the files are for, which a token limited to datasets must name. */
  dataset?: string,
): Promise<Response> {
  const filedata = Object.fromEntries(
    [...files].map(([path, bytes]) => [
      path,
      { length: bytes.length, md5: md5Base64(bytes), name: path, type: 'text/csv' },
    ]),
  );
  return fetch(`${base}/rawstore/authorize`, {
    method: 'POST',
    headers: { 'Auth-Token': rawstore.token, 'content-type': 'application/json' },
    body: JSON.stringify({
      metadata: { owner: rawstore.userid, findability, ...(dataset ? { dataset } : {}) },
      filedata,
      ...(methods ? { upload_methods: methods } : {}),
    }),
  });
}

/** Asks for forms whose digest follows the file: entries without `md5`, and `digest_after`. */
export async function authorizeDigestAfter(
  base: string,
  rawstore: { token: string; userid: string },
  files: Map<string, number | { length: number; head_md5?: string }>,
  options: { findability?: string; digestAfter?: boolean } = {},
): Promise<Response> {
  return fetch(`${base}/rawstore/authorize`, {
    method: 'POST',
    headers: { 'Auth-Token': rawstore.token, 'content-type': 'application/json' },
    body: JSON.stringify({
      metadata: { owner: rawstore.userid, findability: options.findability ?? 'published' },
      filedata: Object.fromEntries(
        [...files].map(([path, file]) => [
          path,
          { ...(typeof file === 'number' ? { length: file } : file), name: path, type: 'text/csv' },
        ]),
      ),
      ...(options.digestAfter === false ? {} : { digest_after: true }),
    }),
  });
}

/** A form's fields, the file, and then the fields that follow it (its digests). */
export function uploadFormDigestAfter(
  query: Record<string, string>,
  bytes: Buffer,
  after: Record<string, string>,
): FormData {
  const form = uploadForm(query, bytes);
  for (const [name, value] of Object.entries(after)) form.append(name, value);
  return form;
}

/** Base64 of a CRC32's four bytes, big-endian, as S3 writes it. */
export function crc32Base64(bytes: Buffer): string {
  const digest = Buffer.alloc(4);
  digest.writeUInt32BE(crc32(bytes));
  return digest.toString('base64');
}

export function uploadForm(query: Record<string, string>, bytes: Buffer): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(query)) form.append(name, value);
  form.append('file', new Blob([bytes]));
  return form;
}

/**
 * Sends each file the hub's upload answer asks for to its signed form, and answers the
 * address of every file (those the hub holds already included) and how many were sent.
 */
export async function uploadFiles(
  reply: AuthorizeReply,
  files: Iterable<[string, Buffer]>,
): Promise<{ urls: Record<string, string>; uploads: number }> {
  let uploads = 0;
  const urls: Record<string, string> = {};
  for (const [path, bytes] of files) {
    const entry = reply.filedata[path];
    if (!entry) throw new Error(`no filedata for ${path}`);
    urls[path] = `${entry.upload_url}/${entry.upload_query.key ?? ''}`;
    if (entry.exists) continue;
    const response = await fetch(entry.upload_url, {
      method: 'POST',
      body: uploadForm(entry.upload_query, bytes),
    });
    if (response.status !== 204)
      throw new Error(
        `upload of ${path} failed: ${String(response.status)} ${await response.text()}`,
      );
    uploads++;
  }
  return { urls, uploads };
}

/** The message of an error answer, `{"error": …}`, or its text. */
function errorOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return typeof body.error === 'string' ? body.error : text;
  } catch {
    return text;
  }
}

/** Publishes a package through the protocol and returns the flow id. */
export async function publish(
  base: string,
  jwt: string,
  dir: string,
  options: { findability?: string; dataset?: string } = {},
): Promise<{ flowId: string; userid: string; uploads: number }> {
  const pkg = readPackage(dir);
  const rawstore = await serviceToken(base, jwt, 'rawstore');
  const authorized = await authorizeUploads(
    base,
    rawstore,
    pkg.files,
    options.findability,
    undefined,
    options.dataset ?? pkg.descriptor.name,
  );
  if (!authorized.ok)
    throw new Error(`rawstore authorize failed: ${await authorized.text().then(errorOf)}`);
  const reply = (await authorized.json()) as AuthorizeReply;
  const { urls, uploads } = await uploadFiles(reply, pkg.files);
  const source = await serviceToken(base, jwt, 'source');
  const { 'datapackage.json': descriptorUrl = '', ...mapping } = urls;
  const spec = {
    meta: {
      version: 1,
      ownerid: source.userid,
      owner: 'ada',
      dataset: options.dataset ?? pkg.descriptor.name,
      findability: options.findability ?? 'published',
    },
    inputs: [
      {
        kind: 'datapackage',
        url: descriptorUrl,
        parameters: { descriptor: pkg.descriptor, 'resource-mapping': mapping },
      },
    ],
  };
  const response = await fetch(`${base}/source/upload`, {
    method: 'POST',
    headers: { 'Auth-Token': source.token, 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  });
  const body = (await response.json()) as { success: boolean; flow_id: string; errors: string[] };
  if (!body.success) throw new Error(`source upload failed: ${body.errors.join(', ')}`);
  return { flowId: body.flow_id, userid: source.userid, uploads };
}

export async function waitForState(
  base: string,
  flowId: string,
  jwt?: string,
): Promise<{
  state: string;
  pipelines: Record<string, { status: string; error_log: string[] }>;
  error_log: string[];
}> {
  // Only how a revision that never ends becomes a failure; the test's own time-out is shorter.
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline) {
    const response = await fetch(
      `${base}/source/${flowId}`,
      jwt ? { headers: { 'Auth-Token': jwt } } : {},
    );
    const status = (await response.json()) as {
      state: string;
      pipelines: Record<string, { status: string; error_log: string[] }>;
      error_log: string[];
    };
    if (status.state === 'SUCCEEDED' || status.state === 'FAILED') return status;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${flowId} did not finish`);
}
