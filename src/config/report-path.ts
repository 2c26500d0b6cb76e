// Where the HTML report goes when no path is given: beside the database it describes, so a run on another database
// never overwrites the demo's report. A path the user gives is taken as given (relative to the working folder).
import { dirname, join } from 'node:path';
import { parseDbLocation } from '../store/location.js';

/** The report's file name beside its database. */
export const REPORT_FILE_NAME = 'report.html';

/**
 * The report's path for the database `db`: `given` when there is one; else `report.html` in the database's folder. A
 * database in object storage has no folder on this machine: its report goes to `report.html` in `workDir`, or in the
 * working folder.
 */
export function reportPathFor(db: string, given?: string, workDir?: string): string {
  if (given !== undefined) return given;
  const loc = parseDbLocation(db);
  if (loc.kind === 'local') return join(dirname(loc.path), REPORT_FILE_NAME);
  return join(workDir ?? '.', REPORT_FILE_NAME);
}
