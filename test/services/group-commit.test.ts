import { describe, expect, it } from 'vitest';
import type { BatchOutcome, BatchWork, Store } from '../../src/db/store.ts';
import { createGroupCommit } from '../../src/services/group-commit.ts';

/** A store whose batches say what they held, each committing a few milliseconds after its works ran. */
function recordingStore(batchesAtOnce: number) {
  const batches: string[][] = [];
  const written: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const store = {
    batchesAtOnce,
    async batch(works: readonly BatchWork[]): Promise<BatchOutcome[]> {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      const names: string[] = [];
      batches.push(names);
      const outcomes: BatchOutcome[] = [];
      for (const work of works) {
        try {
          outcomes.push({ ok: true, value: await work({ written, names } as unknown as Store) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      return outcomes;
    },
  } as unknown as Store;
  return { store, batches, written, mostAtOnce: () => mostAtOnce };
}

const writing = (name: string) => async (tx: Store) => {
  const { written, names } = tx as unknown as { written: string[]; names: string[] };
  names.push(name);
  const seen = written.length;
  written.push(name);
  return `${name} saw ${seen}`;
};

describe('group commit', () => {
  it('gathers the works of one turn into one batch and answers each once the batch ended', async () => {
    const { store, batches } = recordingStore(1);
    const groupCommit = createGroupCommit(store);
    const answers = Promise.all(['a', 'b', 'c'].map((name) => groupCommit.run(writing(name))));
    expect(await answers).toEqual(['a saw 0', 'b saw 1', 'c saw 2']);
    expect(batches).toEqual([['a', 'b', 'c']]);
  });

  it('keeps works sharing a key in separate batches, in the order they came', async () => {
    const { store, batches } = recordingStore(2);
    const groupCommit = createGroupCommit(store);
    const answers = Promise.all([
      groupCommit.run(writing('m1 sent'), { kind: 'status events', keys: ['message 1'] }),
      groupCommit.run(writing('m2 sent'), { kind: 'status events', keys: ['message 2'] }),
      groupCommit.run(writing('m1 delivered'), { kind: 'status events', keys: ['message 1'] }),
      groupCommit.run(writing('m1 read'), { kind: 'status events', keys: ['message 1', 'person 9'] }),
    ]);
    await answers;
    expect(batches).toEqual([['m1 sent', 'm2 sent'], ['m1 delivered'], ['m1 read']]);
  });

  it('gathers each kind’s works apart and runs one batch of a kind at a time', async () => {
    const { store, batches, mostAtOnce } = recordingStore(3);
    const groupCommit = createGroupCommit(store);
    const sends = { kind: 'sends', keys: [] };
    const statuses = { kind: 'status events', keys: [] };
    const first = [
      groupCommit.run(writing('send 1'), sends),
      groupCommit.run(writing('status 1'), statuses),
      groupCommit.run(writing('send 2'), sends),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    const later = [groupCommit.run(writing('send 3'), sends), groupCommit.run(writing('status 2'), statuses)];
    await Promise.all([...first, ...later]);
    const ofKind = (prefix: string) => batches.filter((batch) => batch[0]!.startsWith(prefix));
    expect(ofKind('send')).toEqual([['send 1', 'send 2'], ['send 3']]);
    expect(ofKind('status')).toEqual([['status 1'], ['status 2']]);
    expect(batches.every((batch) => batch.every((name) => name.startsWith(batch[0]!.slice(0, 4))))).toBe(true);
    expect(mostAtOnce()).toBe(2);
  });

  it('starts a work that may run now before an older one of another kind whose key is busy', async () => {
    const { store, batches } = recordingStore(2);
    const groupCommit = createGroupCommit(store);
    const first = groupCommit.run(writing('status of m1'), { kind: 'status events', keys: ['message 1'] });
    await new Promise((resolve) => setImmediate(resolve));
    const waitsForM1 = groupCommit.run(writing('inbound m1'), { kind: 'inbound', keys: ['message 1'] });
    const free = groupCommit.run(writing('send to p2'), { kind: 'sends', keys: ['person 2'] });
    await Promise.all([first, waitsForM1, free]);
    expect(batches).toEqual([['status of m1'], ['send to p2'], ['inbound m1']]);
  });

  it('runs no more batches at once than the store takes, and no more works in one than the limit', async () => {
    const { store, batches, mostAtOnce } = recordingStore(2);
    const groupCommit = createGroupCommit(store, 4);
    const kinds = ['a', 'b', 'c'];
    const works = Array.from({ length: 24 }, (_, i) => groupCommit.run(writing(`${kinds[i % 3]}${i}`), { kind: kinds[i % 3]!, keys: [] }));
    await Promise.all(works);
    expect(mostAtOnce()).toBe(2);
    expect(Math.max(...batches.map((batch) => batch.length))).toBe(4);
    for (const kind of kinds) {
      const ran = batches.flat().filter((name) => name.startsWith(kind));
      expect(ran).toEqual(Array.from({ length: 8 }, (_, i) => `${kind}${i * 3 + kinds.indexOf(kind)}`));
    }
  });

  it('answers a failed work with its error and its batch-mates with their values', async () => {
    const { store } = recordingStore(1);
    const groupCommit = createGroupCommit(store);
    const answers = Promise.allSettled([
      groupCommit.run(writing('a')),
      groupCommit.run(async () => {
        throw new Error('refused');
      }),
      groupCommit.run(writing('c')),
    ]);
    expect((await answers).map((answer) => (answer.status === 'fulfilled' ? answer.value : String(answer.reason)))).toEqual([
      'a saw 0',
      'Error: refused',
      'c saw 1',
    ]);
  });
});
