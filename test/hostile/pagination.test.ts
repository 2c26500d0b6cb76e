// Hostile pagination: /events/list pages that never come back short, pages that repeat, /cdi/integrations handing out
// new cursors over the same items, and lists that never end. Each stops with one line naming the endpoint and the page.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listEventNames } from '../../src/api/analytics-endpoints.js';
import { EVENTS_PAGE_SIZE } from '../../src/api/endpoints.js';
import { listDataIntegrations } from '../../src/api/metadata-endpoints.js';
import { FatalError } from '../../src/errors.js';
import { json, TestServer } from '../api/helpers/test-server.js';
import { expectOneLineError, hostileClient, within } from './hostile-kit.js';

let server: TestServer;
beforeEach(async () => {
  server = await TestServer.create();
});
afterEach(async () => {
  await server.close();
});

async function drain<T>(pages: AsyncGenerator<T[]>): Promise<number> {
  let items = 0;
  for await (const page of pages) items += page.length;
  return items;
}

const integration = (id: string) => ({
  integration_id: id,
  app_group_id: 'ws',
  integration_name: `int ${id}`,
  integration_type: 'warehouse',
  integration_status: 'active',
  contact_emails: '',
  last_updated_at: '2025-06-01T00:00:00Z',
  warehouse_type: 'duckdb',
  last_job_start_time: null,
  last_job_status: null,
  next_scheduled_run: null,
});

describe('/events/list', () => {
  it('with full pages of new names for ever stops at maxPages, naming the endpoint and the page', async () => {
    const { client } = hostileClient(server.url, { maxPages: 40 });
    server.handle((req, res) => {
      const page = Number(req.query.get('page'));
      json(res, 200, {
        message: 'success',
        events: Array.from({ length: EVENTS_PAGE_SIZE }, (_, i) => `event ${page}-${i}`),
      });
    });
    const error = await within(5_000, drain(listEventNames(client)));
    expect(
      expectOneLineError(
        error,
        /^GET \/events\/list: the list is still going at page 41 \(page=40\), past maxPages=40; stopping/,
      ),
    ).toBeInstanceOf(FatalError);
    expect(server.requests).toHaveLength(40);
  });

  it('that repeats an earlier page (not the previous one) is a loop, stopped at the repeat', async () => {
    const { client } = hostileClient(server.url);
    server.handle((req, res) => {
      const page = Number(req.query.get('page')) % 3;
      json(res, 200, {
        message: 'success',
        events: Array.from({ length: EVENTS_PAGE_SIZE }, (_, i) => `event ${page}-${i}`),
      });
    });
    const error = await within(3_000, drain(listEventNames(client)));
    expectOneLineError(error, /^GET \/events\/list: page 4 \(page=3\) repeats 250 items already seen on earlier pages/);
    expect(server.requests).toHaveLength(4);
  });

  it('ending with a short page of names seen before is taken as it is (the list ends there)', async () => {
    const { client } = hostileClient(server.url);
    server.handle((req, res) => {
      const page = Number(req.query.get('page'));
      json(res, 200, {
        message: 'success',
        events: page === 0 ? Array.from({ length: EVENTS_PAGE_SIZE }, (_, i) => `e${i}`) : ['e1', 'e2'],
      });
    });
    expect(await drain(listEventNames(client))).toBe(EVENTS_PAGE_SIZE + 2);
  });

  it('within the default cap a long, honest list is read to its end', async () => {
    const { client } = hostileClient(server.url);
    server.handle((req, res) => {
      const page = Number(req.query.get('page'));
      const n = page < 60 ? EVENTS_PAGE_SIZE : 7;
      json(res, 200, { message: 'success', events: Array.from({ length: n }, (_, i) => `event ${page}-${i}`) });
    });
    expect(await drain(listEventNames(client))).toBe(60 * EVENTS_PAGE_SIZE + 7);
    expect(client.maxPages).toBe(500);
  });
});

describe('/cdi/integrations', () => {
  it('handing out a new cursor over the same items each time is a loop, stopped at the second page', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res, i) =>
      json(
        res,
        200,
        { message: 'success', results: [integration('a'), integration('b')] },
        { Link: `</cdi/integrations?cursor=fresh-${i}>; rel="next"` },
      ),
    );
    const error = await within(3_000, drain(listDataIntegrations(client)));
    expectOneLineError(
      error,
      /^GET \/cdi\/integrations: page 2 \("\?cursor=fresh-0"\) repeats 2 items already seen on earlier pages/,
    );
    expect(server.requests).toHaveLength(2);
  });

  it('with new items and new cursors for ever stops at maxPages', async () => {
    const { client } = hostileClient(server.url, { maxPages: 25 });
    server.handle((_req, res, i) =>
      json(
        res,
        200,
        { message: 'success', results: [integration(`id-${i}`)] },
        { Link: `</cdi/integrations?cursor=c${i}>; rel="next"` },
      ),
    );
    const error = await within(5_000, drain(listDataIntegrations(client)));
    expectOneLineError(
      error,
      /^GET \/cdi\/integrations: the list is still going at page 26 \("\?cursor=c24"\), past maxPages=25/,
    );
    expect(server.requests).toHaveLength(25);
  });
});

describe('maxPages', () => {
  it('is validated when the client is built', () => {
    expect(() => hostileClient(server.url, { maxPages: 0 })).toThrow(/maxPages: must be a whole number > 0, got 0/);
    expect(() => hostileClient(server.url, { maxBodyBytes: 1.5 })).toThrow(/maxBodyBytes: must be a whole number > 0/);
    expect(() => hostileClient(server.url, {}, { maxWaitMs: 3e9 })).toThrow(
      /maxWaitMs: must be a number of milliseconds from 0 to 86400000/,
    );
  });
});
