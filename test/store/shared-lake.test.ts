// A workspace's files belong to it alone: three pipelines — workspaces brand_a and brand_b, and one
// without workspace — publish into one prefix of s3rver and into one local folder, in every order; after each publish
// every manifest of every pipeline names only files that exist, and no pipeline's manifest or file has gone.
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { exportBookkeeping, exportParquet } from '../../src/export/export-parquet.js';
import type { TableManifest } from '../../src/export/table-manifest.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { LocalPlace } from '../../src/store/local-place.js';
import type { Place } from '../../src/store/place.js';
import { createS3Client, s3Settings } from '../../src/store/s3-client.js';
import { S3Place } from '../../src/store/s3-place.js';
import { placeOfWorkspace } from '../../src/store/workspace-place.js';
import type { S3TestServer } from '../helpers/s3-test-server.js';
import { listFiles, makeTarget, runInProcess } from '../reliability/reliability-helpers.js';
import { LAKE_YAML, lakeYamlIn } from './lake-fixtures.js';
import { listKeys, s3Suite } from './s3-fixtures.js';

const PIPELINES = [
  { name: 'a', workspace: 'brand_a' },
  { name: 'b', workspace: 'brand_b' },
  { name: 'none', workspace: undefined },
] as const;

/** The orders three things can come in. */
const ORDERS = [
  [0, 1, 2],
  [0, 2, 1],
  [1, 0, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
] as const;

/** What a lake holds, whatever its store: every key, and a manifest's JSON. */
interface LakeView {
  keys(): Promise<Set<string>>;
  manifest(key: string): Promise<TableManifest>;
}

/** The workspace a manifest key belongs to (`manifests/workspace=NAME/x.json`), '' for `manifests/x.json`. */
const workspaceOf = (key: string): string => /^manifests\/workspace=([^/]+)\//.exec(key)?.[1] ?? '';

/**
 * Every manifest names only files that exist; and every manifest (with its files) the other pipelines left at their
 * last publish is still there (`publisher`, '' for none, replaced its own). Returns, per workspace, the keys its
 * manifests name now.
 */
async function checkLake(
  lake: LakeView,
  label: string,
  publisher: string,
  earlier: Map<string, Set<string>>,
): Promise<Map<string, Set<string>>> {
  const keys = await lake.keys();
  const named = new Map<string, Set<string>>();
  for (const key of [...keys].filter((k) => k.startsWith('manifests/') && k.endsWith('.json'))) {
    const ws = workspaceOf(key);
    const manifest = await lake.manifest(key);
    const set = named.get(ws) ?? new Set<string>();
    set.add(key);
    for (const f of manifest.files) {
      const file = ws === '' ? `${manifest.table}/${f.path}` : `${manifest.table}/workspace=${ws}/${f.path}`;
      expect(keys.has(file), `${label}: ${key} names ${file}`).toBe(true);
      set.add(file);
    }
    named.set(ws, set);
  }
  for (const [ws, before] of earlier) {
    if (ws === publisher) continue;
    const missing = [...before].filter((k) => !keys.has(k));
    expect(missing, `${label}: objects of ${ws || 'the layout without workspace'} gone`).toEqual([]);
  }
  return named;
}

describe('three pipelines, one lake: every workspace keeps its files', () => {
  let dir: string;
  let em: Emulator;
  let store: S3TestServer;
  let s3: S3Client;
  const suite = s3Suite('engage-etl-shared-');
  const dbs: string[] = [];
  beforeAll(async () => {
    ({ dir, em, store, s3 } = suite);
    for (const p of PIPELINES) {
      const yaml = p.workspace ? lakeYamlIn(p.workspace) : LAKE_YAML;
      const t = await makeTarget(dir, p.name, yaml);
      expect((await runInProcess(em, t)).status).toBe('succeeded');
      dbs.push(t.db);
    }
  }, 240_000);

  /** Publish pipelines in `order` (then the first once more, over the others) into `place`, checking the lake after each. */
  async function publishInOrder(place: Place, lake: LakeView, label: string, order: readonly number[]): Promise<void> {
    let last = new Map<string, Set<string>>();
    for (const [step, i] of [...order, order[0]!].entries()) {
      const p = PIPELINES[i]!;
      const wh = await Warehouse.open(dbs[i]!, WAREHOUSE_TABLES);
      try {
        const share = placeOfWorkspace(place, p.workspace);
        await exportParquet(wh, share, { scope: 'all' });
        await exportBookkeeping(wh, share);
      } finally {
        await wh.close();
      }
      last = await checkLake(lake, `${label}, step ${step + 1} (${p.name})`, p.workspace ?? '', last);
    }
    expect([...last.keys()].sort()).toEqual(['', 'brand_a', 'brand_b']);
  }

  it.each(ORDERS.map((o) => [o.map((i) => PIPELINES[i]!.name).join(' → '), o] as const))(
    'in one local folder: %s',
    async (_label, order) => {
      const root = join(dir, `local-${order.join('')}`);
      await mkdir(root);
      const lake: LakeView = {
        keys: async () => new Set(await listFiles(root)),
        manifest: async (key) => JSON.parse(await readFile(join(root, key), 'utf8')) as TableManifest,
      };
      await publishInOrder(new LocalPlace(root), lake, `local ${order.join('')}`, order);
      expect(existsSync(join(root, 'etl_runs', 'workspace=brand_a'))).toBe(true);
    },
    240_000,
  );

  it.each(ORDERS.map((o) => [o.map((i) => PIPELINES[i]!.name).join(' → '), o] as const))(
    'in one s3rver prefix: %s',
    async (_label, order) => {
      const prefix = `shared-${order.join('')}`;
      const client = createS3Client(s3Settings(store.env));
      const scratch = join(dir, `scratch-${order.join('')}`);
      await mkdir(scratch);
      const lake: LakeView = {
        keys: async () =>
          new Set((await listKeys(s3, store.bucket, `${prefix}/`)).map((o) => o.key.slice(prefix.length + 1))),
        manifest: async (key) => {
          const answer = await s3.send(new GetObjectCommand({ Bucket: store.bucket, Key: `${prefix}/${key}` }));
          return JSON.parse(await answer.Body!.transformToString()) as TableManifest;
        },
      };
      try {
        await publishInOrder(
          new S3Place({ client, bucket: store.bucket, prefix, scratchDir: scratch }),
          lake,
          `s3 ${order.join('')}`,
          order,
        );
      } finally {
        client.destroy();
      }
    },
    240_000,
  );
});
