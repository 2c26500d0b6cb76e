// Link-header pagination on a real server: relative and absolute next links, a base URL with a path prefix, any header
// case, the loop guard, and the RFC 8288 parser on its own.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/api-client.js';
import { ENDPOINTS } from '../../src/api/endpoints.js';
import { findLink, parseLinkHeader } from '../../src/api/link-header.js';
import { listDataIntegrations } from '../../src/api/metadata-endpoints.js';
import { paginateLink, resolveNextLink } from '../../src/api/paginate-link.js';
import type { DataIntegration } from '../../src/api/types.js';
import { FatalError } from '../../src/errors.js';
import { json, TestServer } from './helpers/test-server.js';

let server: TestServer;
const clients: ApiClient[] = [];

function makeClient(baseUrl = server.url): ApiClient {
  const client = ApiClient.create({ baseUrl, apiKey: 'k-paginate-3b7e91d04c2a' });
  clients.push(client);
  return client;
}

function integration(id: string): DataIntegration {
  return {
    integration_id: id,
    app_group_id: 'ag',
    integration_name: `n-${id}`,
    integration_type: 'sync',
    integration_status: 'active',
    contact_emails: 'a@example.com',
    last_updated_at: '2026-01-01T00:00:00Z',
    warehouse_type: 'snowflake',
    last_job_start_time: '2026-01-01T00:00:00Z',
    last_job_status: 'success',
    next_scheduled_run: '2026-01-02T00:00:00Z',
  };
}

/** Three pages keyed by cursor; `link(cursor)` writes the next link the way the test wants. */
function threePages(link: (cursor: string) => Record<string, string>): void {
  server.handle((req, res) => {
    const cursor = req.query.get('cursor') ?? '';
    const pages: Record<string, { ids: string[]; next?: string }> = {
      '': { ids: ['1', '2'], next: 'c2' },
      c2: { ids: ['3', '4'], next: 'c3' },
      c3: { ids: ['5'] },
    };
    const page = pages[cursor];
    if (!page) return json(res, 400, { message: 'Invalid cursor' });
    json(res, 200, { results: page.ids.map(integration), message: 'success' }, page.next ? link(page.next) : {});
  });
}

async function collectIds(client: ApiClient): Promise<string[][]> {
  const pages: string[][] = [];
  for await (const page of listDataIntegrations(client)) pages.push(page.map((i) => i.integration_id));
  return pages;
}

beforeEach(async () => {
  server = await TestServer.create();
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await server.close();
});

describe('following next links', () => {
  it('follows relative next links as the spec writes them, next to a prev link', async () => {
    threePages((c) => ({
      Link: `</cdi/integrations?cursor=p>; rel="prev", </cdi/integrations?cursor=${c}>; rel="next"`,
    }));
    expect(await collectIds(makeClient())).toEqual([['1', '2'], ['3', '4'], ['5']]);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/cdi/integrations',
      '/cdi/integrations?cursor=c2',
      '/cdi/integrations?cursor=c3',
    ]);
  });

  it('keeps the base URL path prefix when resolving relative links', async () => {
    threePages((c) => ({ link: `</cdi/integrations?cursor=${c}>; rel=next` }));
    expect(await collectIds(makeClient(`${server.url}/api/v9`))).toEqual([['1', '2'], ['3', '4'], ['5']]);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/v9/cdi/integrations',
      '/api/v9/cdi/integrations?cursor=c2',
      '/api/v9/cdi/integrations?cursor=c3',
    ]);
  });

  it('uses absolute links on the same origin as they are, in an odd header case and a rel list', async () => {
    threePages((c) => ({
      LiNk: `<${server.url}/p/cdi/integrations?cursor=${c}>; REL="last NEXT"; title="page, next"`,
    }));
    expect(await collectIds(makeClient(`${server.url}/p`))).toEqual([['1', '2'], ['3', '4'], ['5']]);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/p/cdi/integrations',
      '/p/cdi/integrations?cursor=c2',
      '/p/cdi/integrations?cursor=c3',
    ]);
  });

  it('stops with a FatalError when a page links back to a page already fetched', async () => {
    server.handle((req, res, index) => {
      const next = req.query.get('cursor') === 'a' ? 'b' : 'a';
      json(
        res,
        200,
        { results: [integration(`i${index}`)], message: 'success' },
        { Link: `</cdi/integrations?cursor=${next}>; rel="next"` },
      );
    });
    const error = await collectIds(makeClient()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FatalError);
    expect((error as Error).message).toMatch(/already fetched; stopping instead of looping/);
    expect(server.requests).toHaveLength(3);
  });

  it('refuses to follow a next link to another origin, which would send the key there', async () => {
    server.handle((_req, res) =>
      json(
        res,
        200,
        { results: [], message: 'success' },
        { Link: '<http://evil.example/cdi/integrations?cursor=x>; rel="next"' },
      ),
    );
    const pages = paginateLink(makeClient(), { endpoint: ENDPOINTS.cdiIntegrations });
    await pages.next();
    await expect(pages.next()).rejects.toThrow(/refusing to send the API key there/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('resolving and parsing links', () => {
  it('resolves relative, prefixed, path-relative and absolute targets', () => {
    const current = 'http://h:1/p/cdi/integrations?cursor=a';
    expect(resolveNextLink('/cdi/integrations?cursor=x', 'http://h:1/p', current)).toBe(
      'http://h:1/p/cdi/integrations?cursor=x',
    );
    expect(resolveNextLink('/p/cdi/integrations?cursor=x', 'http://h:1/p', current)).toBe(
      'http://h:1/p/cdi/integrations?cursor=x',
    );
    expect(resolveNextLink('?cursor=y', 'http://h:1/p', current)).toBe('http://h:1/p/cdi/integrations?cursor=y');
    expect(resolveNextLink('http://h:1/other?cursor=z', 'http://h:1/p', current)).toBe('http://h:1/other?cursor=z');
    expect(resolveNextLink('/cdi/integrations?cursor=x', 'http://h:1', 'http://h:1/cdi/integrations')).toBe(
      'http://h:1/cdi/integrations?cursor=x',
    );
  });

  it('parses several links, quoted and bare parameters, and rel lists', () => {
    const links = parseLinkHeader(
      '<a?x=1>; rel="prev"; title="a, b", <b>;rel=next, <c>; rel="next last"; rel="ignored"',
    );
    expect(links).toEqual([
      { target: 'a?x=1', rels: ['prev'], params: { title: 'a, b' } },
      { target: 'b', rels: ['next'], params: {} },
      { target: 'c', rels: ['next', 'last'], params: {} },
    ]);
    expect(findLink('<x>; rel="Prev", <y>; rel="NEXT"', 'next')).toBe('y');
    expect(findLink('<x>; rel="prev"', 'next')).toBeUndefined();
    expect(findLink(null, 'next')).toBeUndefined();
  });
});
