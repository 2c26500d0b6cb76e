// How the answers of the per-index endpoints are read back onto rows, without a server.
import { describe, expect, it } from 'vitest';
import { readIndexErrors } from '../../src/push/index-errors.js';
import { externalIdRenamesTarget } from '../../src/push/targets/external-id-renames-target.js';

describe('readIndexErrors', () => {
  it('reads [index, message] pairs, index-named messages, and keeps what names no index apart', () => {
    const { byIndex, unplaced } = readIndexErrors(
      [[2, 'taken'], ['index 0: bad'], ['no index here'], [9, 'out of range']],
      3,
    );
    expect([...byIndex]).toEqual([
      [2, 'taken'],
      [0, 'index 0: bad'],
    ]);
    expect(unplaced).toEqual(['no index here', 'out of range']);
  });
});

describe('external-id-renames answers', () => {
  it('accepts external_ids listed as strings as well as objects, and leaves an unconfirmed rename transient', () => {
    const rows = ['a', 'b', 'c'].map((id, i) => ({
      index: i,
      destination: 'external_ids',
      key: id,
      values: { new_external_id: `${id}2` },
      hash: id,
      operation: 'update' as const,
      payload: null,
    }));
    const answer = (body: unknown) => ({ status: 201, headers: new Headers(), body, url: '', attempts: 1 });
    const strings = externalIdRenamesTarget.read(
      answer({ message: 'success', external_ids: ['a2', 'b'], rename_errors: [[2, 'taken']] }),
      rows,
    );
    expect(strings.map((o) => o.status)).toEqual(['accepted', 'accepted', 'rejected']);
    const objects = externalIdRenamesTarget.read(
      answer({
        message: 'success',
        external_ids: [{ current_external_id: 'a', new_external_id: 'a2' }],
        rename_errors: [],
      }),
      rows,
    );
    expect(objects.map((o) => o.status)).toEqual(['accepted', 'transient', 'transient']);
  });
});
