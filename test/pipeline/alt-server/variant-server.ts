// A second, independent-behaving implementation of the API for the pipeline's tests: a real HTTP server on port 0 that
// proxies to our emulator and rewrites, one switch at a time, everything the spec leaves open — window alignment, time
// and number spellings, extra and missing fields, Link targets, header case — and adds faults the emulator never makes.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Emulator } from '../../../src/emulator/server.js';
import type { NumberForm, TimeForm } from './wire-forms.js';
import { encodeNumber, rewriteTime, stringifyBody } from './wire-forms.js';

/**
 * How the variant reads `length` / `ending_at` of the series endpoints.
 * - `contains`: like the emulator, the series ends with the unit CONTAINING ending_at (reading S1).
 * - `whole`: only WHOLE units before ending_at (reading S2), and never a unit that has not ended yet at the server's
 *   now — so the unit in progress can never be returned.
 * - `whole-open`: S2, but a unit in progress is returned when ending_at lies after its end.
 */
export type WindowReading = 'contains' | 'whole' | 'whole-open';

export type VariantFault = '429-http-date' | '502-html' | 'slow-first-byte' | 'stall';

export interface FaultPlan {
  /** Every `every`-th request (counted from 1) gets the next fault of `kinds`, in rotation. */
  every: number;
  kinds: readonly VariantFault[];
  /** Faults injected at most. */
  max: number;
  /** Delay before the first byte of a `slow-first-byte` answer. @default 300 */
  slowMs?: number;
  /** How long a `stall` keeps the connection silent before dropping it (set it above the client's timeout). @default 3000 */
  stallMs?: number;
}

export interface LinkStyle {
  /** `relative` = `/cdi/integrations?cursor=…` (the spec's form), `prefixed` = `/rest/v1/cdi/…`, `absolute` = `http://host:port/rest/v1/cdi/…`. */
  target: 'relative' | 'prefixed' | 'absolute';
  /** Header name exactly as written on the wire. @default 'Link' */
  headerName?: string;
  /** `rel="next"` when true, `rel=next` when false. @default true */
  quoteRel?: boolean;
}

export interface VariantOptions {
  /** Path prefix of the base URL, e.g. `/rest/v1`. @default '' */
  prefix?: string;
  /** @default 'contains' */
  windows?: WindowReading;
  /** Return one unit fewer than asked, dropping the OLDEST (the spec calls `length` a maximum). @default false */
  fewerAtOldEnd?: boolean;
  /** Leave zero-valued points out of series bodies. @default false */
  omitZeros?: boolean;
  /**
   * Spelling of series `time` values; a list is used in rotation, point by point. A day in a form with an offset is the
   * local midnight of its date (`2025-03-01T00:00:00+02:00`), and a daily `ending_at` in an offset is read on its wall
   * clock: the server's days are the dates it writes. @default 'emulator'
   */
  timeForm?: TimeForm | readonly TimeForm[];
  /** Spelling of the metadata timestamps (created_at, last_edited, next_scheduled_run…), rotating likewise. @default 'emulator' */
  metadataTimeForm?: TimeForm | readonly TimeForm[];
  /** Spelling of series values and Canvas summary figures, rotating likewise. @default 'json' */
  numberForm?: NumberForm | readonly NumberForm[];
  /** Add unknown fields to bodies, points and nested objects. @default false */
  extraFields?: boolean;
  /** Leave out optional fields: empty Canvas breakdowns, empty step `messages`, the deprecated `first_step_id`. @default false */
  dropOptional?: boolean;
  /** How next/prev links are written. @default { target: 'relative' } */
  link?: LinkStyle;
  /** Case of the X-RateLimit-* names: as the live service (`X-Ratelimit-Limit`), upper, lower, or not sent. @default 'live' */
  rateLimitHeaderCase?: 'live' | 'upper' | 'lower' | 'none';
  /** @default no faults */
  faults?: FaultPlan;
  /**
   * Another reading of the discovery lists: page-index lists (Canvases, campaigns, segments, products) cut into pages
   * of `pageSize` instead of the emulator's, limit/offset lists (templates, blocks) capped at `pageSize` whatever
   * `limit` asks, `count` left out. List entries' timestamps follow `metadataTimeForm`. @default the emulator's reading
   */
  lists?: { pageSize: number };
  /**
   * Page-index lists (by path) whose pages count from 1, as the product list's documented example asks `page=1`; page 0
   * answers the first page again (`first-page`) or nothing (`empty`). @default pages from 0
   */
  pagesFromOne?: { paths: readonly string[]; pageZero: 'first-page' | 'empty' };
  /** A page-index list (by path) that answers every page with its first one: a server that ignores `page`. @default none */
  loopingList?: string;
  /**
   * Rewrites the entries of each page of the page-index lists (hide, add, change entries), given the page asked for;
   * read at every request. @default none
   */
  listEntries?: (path: string, entries: Json[], page: number) => Json[];
  /** Rewrites any successful JSON body (given the path and query asked) before the other rewrites; read at every request. @default none */
  rewriteBody?: (path: string, query: URLSearchParams, body: Json) => Json;
}

export interface VariantStats {
  /** Every request received, faults included. */
  requests: number;
  /** Requests per endpoint path (prefix removed). */
  byPath: Record<string, number>;
  faults: Record<VariantFault, number>;
  /** `ending_at` of every daily series request, as the client sent it. */
  dayEndingAts: string[];
}

const SERIES_VALUE_FIELD: Readonly<Record<string, string>> = {
  '/purchases/quantity_series': 'purchase_quantity',
  '/purchases/revenue_series': 'revenue',
  '/sessions/data_series': 'sessions',
  '/segments/data_series': 'size',
  '/events/data_series': 'count',
  '/kpi/dau/data_series': 'dau',
  '/kpi/mau/data_series': 'mau',
  '/kpi/new_users/data_series': 'new_users',
  '/kpi/uninstalls/data_series': 'uninstalls',
};

/** Page-index lists: the body key of their entries and the emulator's page size. */
const PAGE_LISTS: Readonly<Record<string, { key: string; size: number }>> = {
  '/canvas/list': { key: 'canvases', size: 100 },
  '/campaigns/list': { key: 'campaigns', size: 100 },
  '/segments/list': { key: 'segments', size: 100 },
  '/purchases/product_list': { key: 'products', size: 10 },
};

const OFFSET_LISTS: Readonly<Record<string, string>> = {
  '/templates/email/list': 'templates',
  '/content_blocks/list': 'content_blocks',
};

/** Daily series whose points are whole Canvas roll-ups under `data.stats` rather than `{ time, <value> }` under `data`. */
const CANVAS_SERIES_PATH = '/canvas/data_series';
/** Daily series whose points carry several figures and per-channel lists rather than one value. */
const CAMPAIGN_SERIES_PATH = '/campaigns/data_series';

const METADATA_TIMESTAMPS = [
  'created_at',
  'updated_at',
  'first_entry',
  'last_entry',
  'last_edited',
  'last_updated_at',
  'last_job_start_time',
  'next_scheduled_run',
];

const UNIT_MS = { day: 86_400_000, hour: 3_600_000 } as const;

const HTML_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class VariantServer {
  /** Base URL to give the pipeline, prefix included, no trailing slash. */
  readonly url: string;
  readonly stats: VariantStats;
  readonly #server: Server;
  readonly #closing = new AbortController();

  private constructor(server: Server, url: string, stats: VariantStats) {
    this.#server = server;
    this.url = url;
    this.stats = stats;
  }

  /** Starts the variant in front of `emulator` on 127.0.0.1, port 0. */
  static async create(emulator: Emulator, options: VariantOptions = {}): Promise<VariantServer> {
    const prefix = (options.prefix ?? '').replace(/\/+$/, '');
    if (prefix !== '' && !prefix.startsWith('/'))
      throw new RangeError(`VariantServer prefix must start with "/", got ${JSON.stringify(prefix)}`);
    const stats: VariantStats = {
      requests: 0,
      byPath: {},
      faults: { '429-http-date': 0, '502-html': 0, 'slow-first-byte': 0, stall: 0 },
      dayEndingAts: [],
    };
    let origin = '';
    let faultsInjected = 0;
    const closing = new AbortController();

    const sleep = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        closing.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });

    const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      stats.requests++;
      const sequence = stats.requests;
      const body = await readBody(req);
      const incoming = new URL(req.url ?? '/', 'http://variant');
      if (!incoming.pathname.startsWith(`${prefix}/`)) {
        return sendJson(
          res,
          404,
          { message: `No endpoint at ${incoming.pathname}; this server lives under ${prefix}/` },
          {},
        );
      }
      const path = incoming.pathname.slice(prefix.length);
      stats.byPath[path] = (stats.byPath[path] ?? 0) + 1;

      const plan = options.faults;
      if (plan && faultsInjected < plan.max && sequence % plan.every === 0) {
        const kind = plan.kinds[faultsInjected % plan.kinds.length]!;
        faultsInjected++;
        stats.faults[kind]++;
        switch (kind) {
          case '429-http-date': {
            // Only Retry-After, as an HTTP-date (second precision), and no X-RateLimit-* at all.
            const at = new Date(Math.ceil((Date.now() + 1000) / 1000) * 1000).toUTCString();
            return sendJson(res, 429, { message: 'Too Many Requests' }, { 'Retry-After': at });
          }
          case '502-html':
            res.writeHead(502, { 'Content-Type': 'text/html', 'Content-Length': String(Buffer.byteLength(HTML_502)) });
            res.end(HTML_502);
            return;
          case 'slow-first-byte':
            await sleep(plan.slowMs ?? 300);
            break;
          case 'stall':
            await sleep(plan.stallMs ?? 3000);
            res.destroy();
            return;
        }
      }

      const query = new URLSearchParams(incoming.search);
      const valueField = SERIES_VALUE_FIELD[path];
      const unit: keyof typeof UNIT_MS = query.get('unit') === 'hour' ? 'hour' : 'day';
      const reading = options.windows ?? 'contains';
      const isCanvasSeries = path === CANVAS_SERIES_PATH;
      const isCampaignSeries = path === CAMPAIGN_SERIES_PATH;
      const rawEnding = query.get('ending_at');
      if ((valueField || isCanvasSeries || isCampaignSeries) && unit === 'day' && rawEnding !== null) {
        stats.dayEndingAts.push(rawEnding);
        // Its days are the dates it writes: an ending_at in an offset is read on the wall clock it names (the emulator
        // behind counts UTC days, so the same wall clock in Z asks it for the same dates).
        const wall = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.\d+)?[+-]\d{2}:?\d{2}$/.exec(rawEnding);
        if (wall) query.set('ending_at', `${wall[1]}Z`);
      }
      if ((valueField || isCanvasSeries || isCampaignSeries) && reading !== 'contains') {
        // S2: the units [floor(E) − length, floor(E)). Asking the emulator (S1) for the unit containing floor(E) − 1 ms
        // returns exactly those.
        const raw = query.get('ending_at');
        const endingMs = raw === null ? emulator.clock.nowMs() : Date.parse(raw);
        if (!Number.isNaN(endingMs)) {
          const floor = Math.floor(endingMs / UNIT_MS[unit]) * UNIT_MS[unit];
          query.set('ending_at', new Date(floor - 1).toISOString());
        }
      }

      const headers: Record<string, string> = {};
      for (const name of ['authorization', 'content-type', 'x-request-origin']) {
        const v = req.headers[name];
        if (typeof v === 'string') headers[name] = v;
      }
      const forward = (q: URLSearchParams) => {
        const qs = q.toString();
        return fetch(`${emulator.url}${path}${qs ? `?${qs}` : ''}`, {
          method: req.method ?? 'GET',
          headers,
          body: req.method === 'GET' || req.method === 'HEAD' || body.length === 0 ? undefined : body,
          redirect: 'manual',
        });
      };
      const offsetList = OFFSET_LISTS[path];
      if (options.lists && offsetList) {
        const limit = Number(query.get('limit') ?? '100');
        if (Number.isInteger(limit) && limit > options.lists.pageSize)
          query.set('limit', String(options.lists.pageSize));
      }
      const pageList = PAGE_LISTS[path];
      if (pageList && path === options.loopingList) query.set('page', '0');
      if (pageList && options.pagesFromOne?.paths.includes(path)) {
        const page = Number(query.get('page') ?? '0');
        if (page === 0 && options.pagesFromOne.pageZero === 'empty') {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ [pageList.key]: [], message: 'success' }));
          return;
        }
        query.set('page', String(Math.max(0, page - 1)));
      }
      let upstream = await forward(query);
      let text = await upstream.text();
      if (pageList && options.listEntries && upstream.status === 200) {
        const body = JSON.parse(text) as Json;
        if (Array.isArray(body[pageList.key]))
          text = JSON.stringify({
            ...body,
            [pageList.key]: options.listEntries(
              path,
              body[pageList.key] as Json[],
              Number(new URLSearchParams(incoming.search).get('page') ?? '0'),
            ),
          });
      }
      if (options.lists && pageList && upstream.status === 200) {
        // Our page k holds items [k·size, (k+1)·size) of the whole list, read from the emulator's pages.
        const size = options.lists.pageSize;
        const page = Number(query.get('page') ?? '0');
        const first = Math.floor((page * size) / pageList.size);
        const last = Math.floor(((page + 1) * size - 1) / pageList.size);
        const items: unknown[] = [];
        let message: unknown = 'success';
        for (let k = first; k <= last; k++) {
          const q = new URLSearchParams(query);
          q.set('page', String(k));
          upstream = await forward(q);
          const part = JSON.parse(await upstream.text()) as Json;
          message = part.message;
          const chunk = Array.isArray(part[pageList.key]) ? (part[pageList.key] as unknown[]) : [];
          items.push(
            ...chunk
              .map((item, i) => ({ item, at: k * pageList.size + i }))
              .filter(({ at }) => at >= page * size && at < (page + 1) * size)
              .map(({ item }) => item),
          );
          if (chunk.length < pageList.size) break;
        }
        text = JSON.stringify({ [pageList.key]: items, message });
      }

      const out: Record<string, string> = {};
      for (const [suffix, value] of [
        ['Limit', upstream.headers.get('x-ratelimit-limit')],
        ['Remaining', upstream.headers.get('x-ratelimit-remaining')],
        ['Reset', upstream.headers.get('x-ratelimit-reset')],
      ] as const) {
        if (value === null) continue;
        const live = `X-Ratelimit-${suffix}`;
        switch (options.rateLimitHeaderCase ?? 'live') {
          case 'live':
            out[live] = value;
            break;
          case 'upper':
            out[live.toUpperCase()] = value;
            break;
          case 'lower':
            out[live.toLowerCase()] = value;
            break;
          case 'none':
            break;
        }
      }
      const retryAfter = upstream.headers.get('retry-after');
      if (retryAfter !== null) out['Retry-After'] = retryAfter;
      const link = upstream.headers.get('link');
      if (link !== null) {
        const style = options.link ?? { target: 'relative' };
        out[style.headerName ?? 'Link'] = rewriteLinks(link, style, prefix, origin);
      }

      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (upstream.status !== 200 || parsed === undefined) {
        res.writeHead(upstream.status, {
          ...out,
          ...(text === '' ? {} : { 'Content-Type': upstream.headers.get('content-type') ?? 'application/json' }),
        });
        res.end(text);
        return;
      }
      const now = emulator.clock.nowMs();
      if (options.rewriteBody) parsed = options.rewriteBody(path, query, parsed as Json);
      const rewritten = valueField
        ? rewriteSeries(parsed, valueField, unit, reading, now, options)
        : isCanvasSeries
          ? rewriteCanvasSeries(parsed, reading, now, options)
          : isCampaignSeries
            ? rewriteCampaignSeries(parsed, reading, now, options)
            : rewriteOther(path, parsed, options);
      sendJson(res, 200, rewritten, out);
    };

    const server = createServer((req, res) => {
      handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { message: `variant server failure: ${(err as Error).message}` }, {});
        else res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const variant = new VariantServer(server, `${origin}${prefix}`, stats);
    variant.#closing.signal.addEventListener('abort', () => closing.abort(), { once: true });
    return variant;
  }

  /** Stops listening and drops open connections (and any stalled answer). Idempotent. */
  async close(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort();
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

/** Cycles through one form or a list of forms, value by value. */
function rotation<T>(forms: T | readonly T[] | undefined, fallback: T): () => T {
  const list: readonly T[] =
    forms === undefined ? [fallback] : Array.isArray(forms) ? (forms as readonly T[]) : [forms as T];
  let i = 0;
  return () => list[i++ % list.length]!;
}

function rewriteLinks(value: string, style: LinkStyle, prefix: string, origin: string): string {
  const links: string[] = [];
  for (const m of value.matchAll(/<([^>]*)>\s*;\s*rel="?([^";,]*)"?/g)) {
    const target = m[1]!;
    const written =
      style.target === 'relative'
        ? target
        : style.target === 'prefixed'
          ? `${prefix}${target}`
          : `${origin}${prefix}${target}`;
    links.push(`<${written}>; rel=${style.quoteRel === false ? m[2] : `"${m[2]}"`}`);
  }
  return links.join(', ');
}

function rewriteSeries(
  body: unknown,
  valueField: string,
  unit: keyof typeof UNIT_MS,
  reading: WindowReading,
  nowMs: number,
  o: VariantOptions,
): unknown {
  if (!isObject(body) || !Array.isArray(body.data)) return body;
  let points = (body.data as Json[]).map((p) => ({
    p,
    ms: Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(String(p.time)) ? `${String(p.time)}T00:00:00Z` : String(p.time)),
  }));
  points.sort((a, b) => a.ms - b.ms);
  // An S2 server only knows whole units: the one still in progress at its now is never part of an answer.
  if (reading === 'whole') points = points.filter(({ ms }) => ms + UNIT_MS[unit] <= nowMs);
  if (o.fewerAtOldEnd) points = points.slice(1);
  if (o.omitZeros) points = points.filter(({ p }) => Number(p[valueField]) !== 0);
  const timeForm = rotation<TimeForm>(o.timeForm, 'emulator');
  const numberForm = rotation<NumberForm>(o.numberForm, 'json');
  const data = points.map(({ p }) => ({
    ...(o.extraFields ? { flags: [], estimated: false } : {}),
    time: rewriteTime(String(p.time), timeForm()),
    [valueField]: encodeNumber(Number(p[valueField]), numberForm()),
    ...(o.extraFields ? { note: null } : {}),
  }));
  return { ...(o.extraFields ? { generated_by: 'variant', units: unit } : {}), ...body, data };
}

/** One Canvas roll-up (a data summary's `data`, or one day of a data series): figures in the asked number forms, extra fields, optional parts dropped. */
function rewriteCanvasStats(stats: Json, o: VariantOptions, numberForm: () => NumberForm): Json {
  const extra = (obj: Json): Json => (o.extraFields ? { ...obj, x_variant: { revision: 2, tags: ['a'] } } : obj);
  const num = (v: unknown): unknown => (typeof v === 'number' ? encodeNumber(v, numberForm()) : v);
  const data: Json = { ...stats };
  const respelled = (obj: Json): Json =>
    Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, k === 'name' ? v : num(v)]));
  const figures = (obj: Json): Json => extra(respelled(obj));
  // Variants and step messages get no extra field: a field the client does not know there is kept and warned about
  // (test/pipeline/channel-stats.test.ts), which is not what this server is about.
  if (isObject(data.total_stats)) data.total_stats = figures(data.total_stats);
  for (const key of ['variant_stats', 'step_stats'] as const) {
    const byId = data[key];
    if (!isObject(byId)) continue;
    if (o.dropOptional && Object.keys(byId).length === 0) {
      delete data[key];
      continue;
    }
    data[key] = Object.fromEntries(
      Object.entries(byId).map(([id, s]) => {
        if (!isObject(s)) return [id, s];
        const { messages, ...rest } = s;
        const out = key === 'variant_stats' ? respelled(rest) : figures(rest);
        if (isObject(messages) && !(o.dropOptional && Object.keys(messages).length === 0)) {
          out.messages = Object.fromEntries(
            Object.entries(messages).map(([channel, list]) => [
              channel,
              Array.isArray(list) ? list.map((m) => (isObject(m) ? respelled(m) : m)) : list,
            ]),
          );
        }
        return [id, out];
      }),
    );
  }
  return data;
}

/** A Canvas data series read like the other series (window reading, one day fewer, time forms), each day rewritten like a summary. */
function rewriteCanvasSeries(body: unknown, reading: WindowReading, nowMs: number, o: VariantOptions): unknown {
  if (!isObject(body) || !isObject(body.data) || !Array.isArray(body.data.stats)) return body;
  let days = (body.data.stats as Json[]).map((d) => ({ d, ms: Date.parse(`${String(d.time)}T00:00:00Z`) }));
  days.sort((a, b) => a.ms - b.ms);
  if (reading === 'whole') days = days.filter(({ ms }) => ms + UNIT_MS.day <= nowMs);
  if (o.fewerAtOldEnd) days = days.slice(1);
  const timeForm = rotation<TimeForm>(o.timeForm, 'emulator');
  const numberForm = rotation<NumberForm>(o.numberForm, 'json');
  const stats = days.map(({ d }) => {
    const { time, ...rest } = d;
    return {
      ...(o.extraFields ? { flags: [] } : {}),
      time: rewriteTime(String(time), timeForm()),
      ...rewriteCanvasStats(rest, o, numberForm),
    };
  });
  return { ...(o.extraFields ? { generated_by: 'variant' } : {}), ...body, data: { ...body.data, stats } };
}

/** A campaign series read like the other series; every figure of a day and of its variation entries in the asked number forms. */
function rewriteCampaignSeries(body: unknown, reading: WindowReading, nowMs: number, o: VariantOptions): unknown {
  if (!isObject(body) || !Array.isArray(body.data)) return body;
  let days = (body.data as Json[]).map((d) => ({ d, ms: Date.parse(`${String(d.time)}T00:00:00Z`) }));
  days.sort((a, b) => a.ms - b.ms);
  if (reading === 'whole') days = days.filter(({ ms }) => ms + UNIT_MS.day <= nowMs);
  if (o.fewerAtOldEnd) days = days.slice(1);
  const timeForm = rotation<TimeForm>(o.timeForm, 'emulator');
  const numberForm = rotation<NumberForm>(o.numberForm, 'json');
  const figures = (obj: Json): Json => ({
    ...Object.fromEntries(
      Object.entries(obj).map(([k, v]) => [k, typeof v === 'number' ? encodeNumber(v, numberForm()) : v]),
    ),
    ...(o.extraFields ? { x_variant: { revision: 2 } } : {}),
  });
  // Every figure of a variation entry has a column (or, for per-button push clicks, is read as a number): each is
  // respelled. No field is added there: one the client does not know is kept and warned about.
  const entry = (m: Json): Json =>
    Object.fromEntries(
      Object.entries(m).map(([k, v]) => [k, typeof v === 'number' ? encodeNumber(v, numberForm()) : v]),
    );
  const data = days.map(({ d }) => {
    const { time, messages, ...rest } = d;
    const lists = isObject(messages)
      ? Object.fromEntries(
          Object.entries(messages).map(([channel, list]) => [
            channel,
            Array.isArray(list) ? list.map((m) => (isObject(m) ? entry(m) : m)) : list,
          ]),
        )
      : messages;
    return { time: rewriteTime(String(time), timeForm()), ...figures(rest), messages: lists };
  });
  return { ...(o.extraFields ? { generated_by: 'variant' } : {}), ...body, data };
}

function rewriteOther(path: string, body: unknown, o: VariantOptions): unknown {
  if (!isObject(body)) return body;
  const extra = (obj: Json): Json => (o.extraFields ? { ...obj, x_variant: { revision: 2, tags: ['a'] } } : obj);
  const timeForm = rotation<TimeForm>(o.metadataTimeForm, 'emulator');
  const numberForm = rotation<NumberForm>(o.numberForm, 'json');
  const stamps = (obj: Json): Json => {
    const copy = { ...obj };
    for (const key of METADATA_TIMESTAMPS)
      if (typeof copy[key] === 'string') copy[key] = rewriteTime(copy[key], timeForm());
    return copy;
  };
  const num = (v: unknown): unknown => (typeof v === 'number' ? encodeNumber(v, numberForm()) : v);
  switch (path) {
    case '/canvas/data_summary':
      return isObject(body.data) ? extra({ ...body, data: extra(rewriteCanvasStats(body.data, o, numberForm)) }) : body;
    case '/canvas/details': {
      const out = stamps(body);
      if (Array.isArray(out.variants)) {
        out.variants = out.variants.map((v) => {
          if (!isObject(v)) return v;
          const copy = extra({ ...v });
          if (o.dropOptional) delete copy.first_step_id;
          return copy;
        });
      }
      // Step objects get no extra field: their `messages` are stored whole, and their other fields are read by name.
      return extra(out);
    }
    case '/content_blocks/info':
      return extra({ ...stamps(body), inclusion_count: num(body.inclusion_count) });
    case '/templates/email/info':
      return extra(stamps(body));
    case '/canvas/list':
    case '/campaigns/list':
    case '/segments/list':
    case '/templates/email/list':
    case '/content_blocks/list': {
      const key = PAGE_LISTS[path]?.key ?? OFFSET_LISTS[path]!;
      const { count, ...rest } = body;
      const listed = Array.isArray(body[key])
        ? (body[key] as unknown[]).map((e) => (isObject(e) ? extra(stamps(e)) : e))
        : body[key];
      return extra({ ...rest, ...(o.lists || count === undefined ? {} : { count }), [key]: listed });
    }
    case '/cdi/integrations':
      return extra({
        ...body,
        results: Array.isArray(body.results)
          ? body.results.map((r) => (isObject(r) ? extra(stamps(r)) : r))
          : body.results,
      });
    default:
      return extra(body);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = stringifyBody(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(Buffer.alloc(0)));
  });
}
