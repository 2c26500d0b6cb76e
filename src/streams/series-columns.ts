// Columns several series tables share.
import { col } from '../load/table-definition.js';

/** The series unit column: the API knows days and hours only. */
export const UNIT_COLUMN = col('unit', 'VARCHAR', { allowed: ['day', 'hour'] });
