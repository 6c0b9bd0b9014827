/** The hub's publication API: rawstore authorize and presign, uploads, source upload, status. */
import { http, HttpResponse, type JsonBodyType } from 'msw';
import { serviceTokens, signedIn } from './auth.js';
import { HUB } from './hub.js';

/** The dataset and revision the publication handlers answer about. */
export const FLOW_ID = 'u1/world-cities/1';

/** The hub signs nothing: every object is public, its presigned URL the URL itself. */
export function presignEcho() {
  return http.get(`${HUB}/rawstore/presign`, ({ request }) =>
    HttpResponse.json({ url: new URL(request.url).searchParams.get('url') }),
  );
}

/** /rawstore/presign answers this document, whatever it is asked: a hub of another shape. */
export function presignAnswering(document: JsonBodyType) {
  return http.get(`${HUB}/rawstore/presign`, () => HttpResponse.json(document));
}

/** /rawstore/authorize: every file to upload to /upload, or every one held already (`exists`). */
export function rawstoreReply(exists: boolean, contentType = 'application/json') {
  return http.post(`${HUB}/rawstore/authorize`, async ({ request }) => {
    const body = (await request.json()) as { filedata: Record<string, unknown> };
    const filedata = Object.fromEntries(
      Object.keys(body.filedata).map((path) => [
        path,
        {
          upload_url: `${HUB}/upload`,
          upload_query: { key: `${path.replace(/\W/g, '')}.csv`, 'Content-MD5': 'x' },
          exists,
        },
      ]),
    );
    return new HttpResponse(JSON.stringify({ filedata }), {
      headers: { 'Content-Type': contentType },
    });
  });
}

/** /source/upload takes the package: revision 1 of u1/world-cities. */
export function sourceAccepted() {
  return http.post(`${HUB}/source/upload`, () =>
    HttpResponse.json({
      success: true,
      dataset_id: 'u1/world-cities',
      flow_id: FLOW_ID,
      errors: [],
    }),
  );
}

/** /source/upload answers this document (with a 200), whatever it is sent. */
export function sourceAnswering(document: JsonBodyType) {
  return http.post(`${HUB}/source/upload`, () => HttpResponse.json(document));
}

/** The publication status document of revision 1 in a given state. */
export function flowStatus(state: string, pipelines: object = {}) {
  return HttpResponse.json({ id: FLOW_ID, state, pipelines, error_log: [] });
}

/** The publication of revision 1 is done. */
export function publicationDone() {
  return http.get(`${HUB}/source/${FLOW_ID}`, () => flowStatus('SUCCEEDED'));
}

/** Every store upload (/upload) is taken. */
export function uploadsAccepted() {
  return http.post(`${HUB}/upload`, () => new HttpResponse(null, { status: 204 }));
}

/** Every call of a publication that goes well, but the uploads, which each test answers. */
export function publishingHub() {
  return [signedIn(), serviceTokens(), rawstoreReply(false), sourceAccepted(), publicationDone()];
}
