// The Place `--out` names: a local folder (checked writable, unless only read) or an `s3://BUCKET/PREFIX` (listed once,
// so bad credentials, a missing bucket or a wrong endpoint fail the run at its start, not after the fetch).
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { assertWritableDir } from '../export/assert-writable-dir.js';
import { LocalPlace } from './local-place.js';
import { parseLocation } from './location.js';
import type { Location } from './location.js';
import type { Place } from './place.js';
import { makeTempFolder } from './temp-folder.js';

export interface OpenedPlace {
  place: Place;
  /** Remove the place's scratch folder where it is a temp one and close its client. */
  close(): Promise<void>;
}

export interface OpenPlaceOptions {
  /**
   * Folder the scratch folder of an object-store place is made in.
   * @default the system's temp folder
   */
  workDir?: string;
  /**
   * The place is only read (`dbt --parquet`): a local folder is not probed for writing.
   * @default false
   */
  readOnly?: boolean;
}

/** The place of `out`: a raw `--out` value, or a location another flag parsed. */
export async function openPlace(out: string | Location, opts: OpenPlaceOptions = {}): Promise<OpenedPlace> {
  const location = typeof out === 'string' ? parseLocation(out, '--out') : out;
  if (location.kind === 'local') {
    if (!opts.readOnly) await assertWritableDir(location.path);
    return { place: new LocalPlace(location.path), close: async () => undefined };
  }
  const [{ createS3Client }, { S3Place }] = await Promise.all([import('./s3-client.js'), import('./s3-place.js')]);
  const scratchDir = await makeTempFolder(opts.workDir ?? tmpdir(), 'out');
  const client = createS3Client();
  const close = async () => {
    await rm(scratchDir, { recursive: true, force: true });
    client.destroy();
  };
  const place = new S3Place({ client, bucket: location.bucket, prefix: location.key, scratchDir });
  try {
    await place.list('manifests/');
  } catch (err) {
    await close();
    throw err;
  }
  return { place, close };
}
