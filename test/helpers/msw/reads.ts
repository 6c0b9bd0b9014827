/** The hub's read API: search, a dataset's revisions, deletion. */
import { http, HttpResponse } from 'msw';
import { HUB } from './hub.js';

/** /metastore/search answers these results (a total of their count unless given). */
export function searchResults(results: object[], total = results.length) {
  return http.get(`${HUB}/metastore/search`, () =>
    HttpResponse.json({ results, summary: { total } }),
  );
}

/** /source/<ownerid>/<name>/revisions answers these revisions. */
export function revisionsOf(ownerid: string, name: string, revisions: object[]) {
  return http.get(`${HUB}/source/${ownerid}/${name}/revisions`, () =>
    HttpResponse.json({ revisions }),
  );
}

/** DELETE /source/<ownerid>/<name> deletes it, and records that it did in `deleted`. */
export function deletion(ownerid: string, name: string, deleted: string[] = []) {
  return http.delete(`${HUB}/source/${ownerid}/${name}`, () => {
    deleted.push(`${ownerid}/${name}`);
    return HttpResponse.json({ success: true });
  });
}
