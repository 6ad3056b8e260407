import { beforeEach, describe, expect, it } from 'vitest';
import { accountQueries } from '../../../src/db/postgres/queries/accounts.ts';
import { mediaQueries } from '../../../src/db/postgres/queries/media.ts';
import type { MediaObjectRow } from '../../../src/db/sqlite/queries/media.ts';
import { accountRow, twinModule, useTwins } from '../../helpers/postgres-twins.ts';

const stored: MediaObjectRow = {
  id: 'm1',
  accountId: 'a',
  sourceUrl: 'upload://photo.png',
  contentType: 'image/png',
  bytes: Buffer.from([0, 1, 2, 254, 255]),
  byteLength: 5,
  remoteUrl: null,
  createdAt: 1_000,
};

const relayed: MediaObjectRow = {
  ...stored,
  id: 'm2',
  bytes: null,
  byteLength: 2_048,
  remoteUrl: 'https://provider.example/media/m2',
};

describe('the PostgreSQL media queries answer as SQLite’s', () => {
  const twins = useTwins();
  beforeEach(async () => {
    await twinModule(twins, 'accounts', accountQueries(twins.pg)).same((q) => q.insertAccount(accountRow('a', 1)));
  });

  it('stores bytes and relayed objects, keeps the first of a relayed id, and finds them by id', async () => {
    const media = twinModule(twins, 'media', mediaQueries(twins.pg));
    await media.same(async (q) => {
      await q.insert(stored);
      await q.insertIfNew(relayed);
      await q.insertIfNew({ ...relayed, remoteUrl: 'https://provider.example/other' });
    });
    expect(await media.same((q) => q.findById('m1'))).toEqual(stored);
    expect(await media.same((q) => q.findById('m2'))).toEqual(relayed);
    expect(await media.same((q) => q.findById('nobody'))).toBeUndefined();
    await expect(mediaQueries(twins.pg).insert(stored)).rejects.toMatchObject({ cause: { code: '23505' } });
  });
});
