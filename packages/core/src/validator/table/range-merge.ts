/**
 * The first range's side of a two-worker validation (see ranges.ts): the second range's
 * errors and the keys it shares with the first are merged into the first's validator in
 * the order one pass would have found them.
 */
import { reportError } from '../report/errors.js';
import type { ErrorDetails, ReportError } from '../report/types.js';
import { errorPasses } from '../report/filter.js';
import type { TaskLimits } from '../report/task.js';
import { readRangeRecords } from './range-validate.js';
import { rangeLayout, type RangeRequest, type RangeResult } from './ranges.js';
import { isCommentRow, type ErrorPlace, type TableValidator } from './table-validator.js';

/** A key of the second range first seen in the first range: one pass reports it there. */
interface Repeat {
  /** The row in the second range, counted from its start. */
  row: number;
  phase: number;
  tracker: number;
  /** The row of the first range where the key was first seen. */
  first: number;
  primary: boolean;
}

type Found = Extract<RangeResult, { ok: true }>;

const placeKey = (tracker: number, row: number): string => `${String(tracker)}:${String(row)}`;

/** The keys of the second range that the first range holds, in the order they are reported. */
function repeatsAcross(validator: TableValidator, found: Found): Repeat[] {
  const repeats: Repeat[] = [];
  validator.trackers.forEach((tracker, index) => {
    const dump = found.keys[index];
    if (!dump) return;
    const phase = validator.uniquePhase(index);
    const primary = index === validator.primaryTracker;
    for (const [row, first] of tracker.sharedWith(dump)) {
      if (phase !== undefined) repeats.push({ row, phase, tracker: index, first, primary: false });
      if (primary)
        repeats.push({ row, phase: validator.primaryPhase, tracker: index, first, primary });
    }
  });
  return repeats.sort((a, b) => a.row - b.row || a.phase - b.phase);
}

/** The repeats whose errors the error filter lets into the report. */
function reported(repeats: Repeat[], limits: TaskLimits): Repeat[] {
  const unique = errorPasses(reportError('unique-error'), limits);
  const primary = errorPasses(reportError('primary-key'), limits);
  return repeats.filter((repeat) => (repeat.primary ? primary : unique));
}

/** The cells and the count of rows up to each row that repeats a key, read again. */
async function rowsOfRepeats(
  request: RangeRequest,
  repeats: Repeat[],
  wanted: number,
): Promise<Map<number, { cells: string[]; rows: number }>> {
  const rows = new Map<number, { cells: string[]; rows: number }>();
  const needed = [...new Set(repeats.map((repeat) => repeat.row))].slice(0, wanted);
  if (needed.length === 0) return rows;
  const layout = rangeLayout(request.commentChar);
  let record = 0;
  let counted = 0;
  let next = 0;
  await readRangeRecords(request, (cells) => {
    record++;
    if (!isCommentRow(layout, record, cells)) counted++;
    if (record === needed[next]) {
      rows.set(record, { cells, rows: counted });
      next++;
    }
    return next < needed.length;
  });
  return rows;
}

/** What an error holds beyond the texts reportError builds from its type and note. */
function detailsOf(error: ReportError): ErrorDetails {
  const details: ErrorDetails & Partial<ReportError> = { ...error };
  delete details.type;
  delete details.title;
  delete details.description;
  delete details.message;
  delete details.tags;
  delete details.note;
  return details;
}

/** The second range's error with its row numbers counted from the start of the table. */
function rebase(
  error: ReportError,
  place: ErrorPlace,
  offset: number,
  firsts: Map<string, number>,
): ReportError {
  const { type, note } = error;
  const details = detailsOf(error);
  const rowNumber = (details.rowNumber ?? 0) + offset;
  if (place.tracker < 0) return reportError(type, note, { ...details, rowNumber });
  const first = firsts.get(placeKey(place.tracker, place.first)) ?? place.first + offset;
  const moved = note.replace(/row "\d+"$/, `row "${String(first)}"`);
  return reportError(type, moved, { ...details, rowNumber });
}

/**
 * Adds what the second range found to the first range's validator, which has read every
 * record before it. Returns once the error limit is reached, with the rows counted as one
 * pass stopping there would count them.
 */
export async function mergeRange(
  validator: TableValidator,
  found: Found,
  request: RangeRequest,
  limits: TaskLimits,
): Promise<void> {
  const offset = validator.rowNumber;
  const rowsBefore = validator.rows;
  const across = repeatsAcross(validator, found);
  const firsts = new Map(
    across.map((repeat) => [placeKey(repeat.tracker, repeat.row), repeat.first]),
  );
  const repeats = reported(across, limits);
  // Each of these rows adds at least one error: past the limit's count, none is reported.
  const wanted = limits.limitErrors > 0 ? limits.limitErrors : Infinity;
  const reread = await rowsOfRepeats(request, repeats, wanted);
  const { errors, places } = found;
  let e = 0;
  let r = 0;
  while (e < errors.length || r < repeats.length) {
    const error = errors[e];
    const place = places[e];
    const repeat = repeats[r];
    const errorFirst =
      error !== undefined &&
      place !== undefined &&
      (repeat === undefined ||
        (error.rowNumber ?? 0) < repeat.row ||
        ((error.rowNumber ?? 0) === repeat.row && place.phase <= repeat.phase));
    let stoppedAt: { row: number; rows: number } | undefined;
    if (errorFirst) {
      e++;
      validator.addFound(rebase(error, place, offset, firsts));
      stoppedAt = { row: error.rowNumber ?? 0, rows: place.rows };
    } else if (repeat) {
      r++;
      const row = reread.get(repeat.row);
      if (!row) continue;
      const rowNumber = repeat.row + offset;
      if (repeat.primary) validator.reportPrimaryRepeat(repeat.first, row.cells, rowNumber);
      else validator.reportUniqueRepeat(repeat.tracker, repeat.first, row.cells, rowNumber);
      stoppedAt = { row: repeat.row, rows: row.rows };
    }
    if (stoppedAt && !validator.open) {
      validator.rowNumber = offset + stoppedAt.row;
      validator.rows = rowsBefore + stoppedAt.rows;
      return;
    }
  }
  validator.rowNumber = offset + found.records;
  validator.rows = rowsBefore + found.rows;
}
