// `user-attributes` → POST /users/track `attributes` (2.2, 4.2): one attributes object per user, carrying only the
// attributes that changed since the platform last accepted the row — NULL deletes, list columns add/remove the
// difference, --inc columns send the increase of a running total.
import type { ApiCall } from '../../api/api-call.js';
import { ENDPOINTS } from '../../api/endpoints.js';
import type { UsersTrackBody } from '../../api/types.js';
import type { PlannedRow, PushTarget, RowOutcome, SourceRow, TargetContext } from '../push-target.js';
import { EMAIL, isProblem, optionalText } from '../row-checks.js';
import type { Json, RowValues } from '../row-values.js';
import { sameJson, show, stableStringify, toJson } from '../row-values.js';

/** Attribute objects per call (spec 2.2 rule 5). */
export const ATTRIBUTE_OBJECTS_PER_REQUEST = 75;
/** Some plans cap a call lower: --batch-size goes down to this. */
export const MIN_ATTRIBUTE_OBJECTS_PER_REQUEST = 50;

/** Columns that identify the user or steer processing; never pushed as attributes. */
const IDENTITY_COLUMNS = ['external_id', 'user_alias_name', 'user_alias_label'];
const UPDATE_EXISTING_ONLY = '_update_existing_only';
/** Fields the platform refuses to delete or change through an attributes object. */
const NOT_ATTRIBUTES = ['platform_id', 'push_token_import', 'user_alias'];

type Scalar = string | number | boolean;

function isScalarList(value: Json): value is Scalar[] {
  return (
    Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
  );
}

/** Elements of `a` not in `b`, compared as JSON (arrays are sets on the platform). */
function minus(a: readonly Scalar[], b: readonly Scalar[]): Scalar[] {
  const seen = new Set(b.map((v) => stableStringify(v)));
  return [...new Map(a.filter((v) => !seen.has(stableStringify(v))).map((v) => [stableStringify(v), v])).values()];
}

function identityOf(key: string): Record<string, Json> {
  const colon = key.indexOf(':');
  const kind = key.slice(0, colon);
  const rest = key.slice(colon + 1);
  if (kind === 'alias') {
    const [label, ...name] = rest.split(':');
    return { user_alias: { alias_name: name.join(':'), alias_label: label ?? '' } };
  }
  return { [kind]: rest };
}

export const userAttributesTarget: PushTarget = {
  name: 'user-attributes',
  summary: 'set, delete, add to / remove from and increment user attributes (POST /users/track, 75 objects per call)',
  irreversible: false,
  maxBatchSize: ATTRIBUTE_OBJECTS_PER_REQUEST,
  minBatchSize: MIN_ATTRIBUTE_OBJECTS_PER_REQUEST,
  endpointFor: () => ENDPOINTS.usersTrack,

  columnsProblem(columns, ctx) {
    if (
      !columns.includes('external_id') &&
      !columns.includes('email') &&
      !(columns.includes('user_alias_name') && columns.includes('user_alias_label'))
    ) {
      return 'user-attributes needs a column that identifies the user: "external_id", "email", or "user_alias_name" with "user_alias_label"';
    }
    const reserved = columns.filter((c) => NOT_ATTRIBUTES.includes(c));
    if (reserved.length > 0)
      return `user-attributes cannot push the column${reserved.length > 1 ? 's' : ''} ${reserved.join(', ')}: the platform assigns or guards them; drop them from the query`;
    const missing = ctx.mapping.incColumns.filter((c) => !columns.includes(c));
    if (missing.length > 0)
      return `--inc names ${missing.join(', ')}, which the source does not have (it has ${columns.join(', ')})`;
    const identity = ctx.mapping.incColumns.filter(
      (c) => IDENTITY_COLUMNS.includes(c) || c === 'email' || c === UPDATE_EXISTING_ONLY,
    );
    if (identity.length > 0)
      return `--inc names ${identity.join(', ')}, which identifies the user; name integer attribute columns only`;
    return undefined;
  },

  readRow(row, index, ctx) {
    const externalId = optionalText(row, 'external_id');
    if (isProblem(externalId)) return externalId.problem;
    const aliasName = optionalText(row, 'user_alias_name');
    if (isProblem(aliasName)) return aliasName.problem;
    const aliasLabel = optionalText(row, 'user_alias_label');
    if (isProblem(aliasLabel)) return aliasLabel.problem;
    if ((aliasName === undefined) !== (aliasLabel === undefined))
      return 'fill both user_alias_name and user_alias_label, or neither';
    const email = optionalText(row, 'email');
    if (isProblem(email)) return email.problem;
    if (email !== undefined && !EMAIL.test(email)) return `column "email" holds ${show(email)}, not an email address`;

    let key: string;
    let emailIsIdentity = false;
    if (externalId !== undefined) key = `external_id:${externalId}`;
    else if (aliasName !== undefined && aliasLabel !== undefined) key = `alias:${aliasLabel}:${aliasName}`;
    else if (email !== undefined) {
      key = `email:${email.toLowerCase()}`;
      emailIsIdentity = true;
    } else return 'the row identifies no user: fill external_id, user_alias_name + user_alias_label, or email';

    const values: RowValues = {};
    for (const [column, raw] of Object.entries(row)) {
      if (IDENTITY_COLUMNS.includes(column) || (emailIsIdentity && column === 'email')) continue;
      if (column === UPDATE_EXISTING_ONLY) {
        if (raw !== null && typeof raw !== 'boolean')
          return `column "${UPDATE_EXISTING_ONLY}" must be true, false or NULL, got ${show(raw)}`;
        if (raw !== null) values[column] = raw as boolean;
        continue;
      }
      // A DATE read from DuckDB is a Date at UTC midnight; the platform wants dob as YYYY-MM-DD.
      const converted =
        column === 'dob' && raw instanceof Date
          ? { ok: true as const, value: raw.toISOString().slice(0, 10) }
          : toJson(raw, `column "${column}"`);
      if (!converted.ok) return converted.problem;
      const value = converted.value;
      if (ctx.mapping.incColumns.includes(column)) {
        if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
          return `column "${column}" is pushed with --inc and must hold an integer running total, got ${show(value)} (use COALESCE("${column}", 0) for NULL)`;
        }
      } else if (Array.isArray(value) && !isScalarList(value)) {
        return `column "${column}" holds ${show(value)}: array attributes hold strings, numbers or booleans, one level deep`;
      }
      values[column] = value;
    }
    return { index, destination: 'users', key, values } satisfies SourceRow;
  },

  plan(row, acked, ctx) {
    const attributes: Record<string, Json> = {};
    for (const [name, value] of Object.entries(row.values)) {
      if (name === UPDATE_EXISTING_ONLY) continue;
      const before = acked?.[name];
      if (ctx.mapping.incColumns.includes(name)) {
        // The column is the running total this source contributed; the platform gets the increase since last time.
        const delta = (value as number) - (typeof before === 'number' ? before : 0);
        if (delta !== 0) attributes[name] = { inc: delta };
      } else if (value === null) {
        // NULL deletes what was pushed before; a NULL never pushed has nothing to delete.
        if (before !== undefined && before !== null) attributes[name] = null;
      } else if (isScalarList(value) && before !== undefined && before !== null && isScalarList(before)) {
        const add = minus(value, before);
        const remove = minus(before, value);
        if (add.length > 0 || remove.length > 0)
          attributes[name] = { ...(add.length > 0 ? { add } : {}), ...(remove.length > 0 ? { remove } : {}) };
      } else if (!sameJson(value, before)) {
        attributes[name] = value;
      }
    }
    if (Object.keys(attributes).length === 0) return undefined;
    const control = row.values[UPDATE_EXISTING_ONLY];
    const payload: Record<string, Json> = {
      ...identityOf(row.key),
      ...(control !== undefined ? { [UPDATE_EXISTING_ONLY]: control } : {}),
      ...attributes,
    };
    return { operation: acked === undefined ? 'create' : 'update', payload };
  },

  groupKey: () => 'users',

  call(rows, ctx: TargetContext): ApiCall {
    const attributes = rows.map((r) => r.payload);
    const increments = rows.some((r) =>
      Object.values(r.payload as Record<string, Json>).some(
        (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && 'inc' in v,
      ),
    );
    return {
      endpoint: ENDPOINTS.usersTrack,
      body: { attributes },
      ...(ctx.bulk ? { headers: { 'X-Braze-Bulk': 'true' } } : {}),
      // An increment applied twice is wrong: a 2xx cut short means the platform took it, so it is not resent.
      ...(increments ? { resendAfterCutShortSuccess: false } : {}),
    };
  },

  read(response, rows): RowOutcome[] {
    const body = response.body as UsersTrackBody | undefined;
    const problems = new Map<number, string[]>();
    for (const error of Array.isArray(body?.errors) ? body.errors : []) {
      const index = (error as { index?: unknown }).index;
      if (typeof index !== 'number' || !rows[index]) continue;
      const type = (error as { type?: unknown }).type;
      problems.set(index, [...(problems.get(index) ?? []), typeof type === 'string' ? type : JSON.stringify(error)]);
    }
    return rows.map((row: PlannedRow, i) => {
      const list = problems.get(i);
      return list ? { row, status: 'rejected', error: list.join('; ') } : { row, status: 'accepted' };
    });
  },
};
