// The discovery lists on a real server: pages smaller than documented, `count` absent or wrong, a `limit` capped below
// what was asked, a server that ignores the page or offset, and malformed entries named with their endpoint.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/api-client.js';
import { listCanvases, listContentBlocks, listEmailTemplates, listProducts } from '../../src/api/list-endpoints.js';
import { FatalError } from '../../src/errors.js';
import { json, TestServer } from './helpers/test-server.js';

let server: TestServer;
const clients: ApiClient[] = [];

function makeClient(): ApiClient {
  const client = ApiClient.create({ baseUrl: server.url, apiKey: 'k-lists-5d2c81e09f3a', maxPages: 20 });
  clients.push(client);
  return client;
}

async function collect<T>(pages: AsyncGenerator<T[]>): Promise<T[][]> {
  const out: T[][] = [];
  for await (const page of pages) out.push(page);
  return out;
}

const templates = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    email_template_id: `tpl_${i}`,
    template_name: `T${i}`,
    updated_at: '2024-01-01T00:00:00+02:00',
    tags: [],
  }));

/** An offset list of `all`, capping `limit` at `cap` and sending `count` only when asked to. */
function offsetServer(all: unknown[], cap: number, count: (n: number) => number | undefined): void {
  server.handle((req, res) => {
    const limit = Math.min(Number(req.query.get('limit')), cap);
    const offset = Number(req.query.get('offset'));
    const c = count(all.length);
    json(res, 200, {
      ...(c === undefined ? {} : { count: c }),
      templates: all.slice(offset, offset + limit),
      message: 'success',
    });
  });
}

beforeEach(async () => {
  server = await TestServer.create();
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await server.close();
});

describe('limit/offset lists', () => {
  it('take one request of 1,000 when `count` says the short page is the last', async () => {
    offsetServer(templates(140), 1000, (n) => n);
    const pages = await collect(listEmailTemplates(makeClient()));
    expect(pages.map((p) => p.length)).toEqual([140]);
    expect(server.requests.map((r) => [r.query.get('limit'), r.query.get('offset')])).toEqual([['1000', '0']]);
  });

  it('without `count`, with limit capped at 50, read on from what came until a page is shorter than the first', async () => {
    offsetServer(templates(140), 50, () => undefined);
    const pages = await collect(listEmailTemplates(makeClient()));
    expect(pages.flat().map((t) => t.email_template_id)).toEqual(templates(140).map((t) => t.email_template_id));
    expect(server.requests.map((r) => r.query.get('offset'))).toEqual(['0', '50', '100']);
  });

  it('do not trust a `count` that says less than a full page brought', async () => {
    offsetServer(templates(120), 50, () => 10);
    const pages = await collect(listEmailTemplates(makeClient()));
    expect(pages.flat()).toHaveLength(120);
  });

  it('refuse a server that ignores the offset instead of looping', async () => {
    server.handle((_req, res) =>
      json(res, 200, { content_blocks: [{ content_block_id: 'cb_1' }, { content_block_id: 'cb_2' }] }),
    );
    await expect(collect(listContentBlocks(makeClient()))).rejects.toThrow(FatalError);
    await expect(collect(listContentBlocks(makeClient()))).rejects.toThrow(/repeats 2 items/);
  });

  it('name the endpoint and the entry when an entry has no id', async () => {
    server.handle((_req, res) => json(res, 200, { count: 1, content_blocks: [{ name: 'no id' }] }));
    await expect(collect(listContentBlocks(makeClient()))).rejects.toThrow(
      /\/content_blocks\/list.*content_blocks\[0\] has no content_block_id/s,
    );
  });
});

describe('page-index lists', () => {
  it('read pages of 40 where 100 are documented, until one is shorter than the first', async () => {
    const all = Array.from({ length: 95 }, (_, i) => ({
      id: `cv_${i}`,
      name: `C${i}`,
      last_edited: '2024-01-01T00:00:00Z',
      tags: [],
    }));
    server.handle((req, res) => {
      const page = Number(req.query.get('page'));
      json(res, 200, { canvases: all.slice(page * 40, page * 40 + 40), message: 'success' });
    });
    const pages = await collect(listCanvases(makeClient(), { includeArchived: true }));
    expect(pages.map((p) => p.length)).toEqual([40, 40, 15]);
    expect(server.requests[0]!.query.get('include_archived')).toBe('true');
  });

  it('end at a page shorter than the documented 100 only after confirming it with an empty page, then count it', async () => {
    server.handle((req, res) =>
      json(res, 200, { products: req.query.get('page') === '0' ? ['gems', 'coins'] : [], message: 'success' }),
    );
    const pages = await collect(listProducts(makeClient()));
    expect(pages).toEqual([['gems', 'coins'], []]);
  });
});
