// The per-pool task queues at a deadline: the tasks never taken are counted from the sizes their sources declared, and
// are not made (a first backfill cut by --time-budget leaves hundreds of thousands of windows); and a task is taken only
// once the rows have room.
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/pipeline/task-queues.js';
import { DeadlinePassed, TaskQueues } from '../../src/pipeline/task-queues.js';

/** `n` tasks of one series, made one at a time; `made` counts those made. */
function source(n: number, made: { count: number }, work: (i: number) => Promise<void>): Iterable<Task> {
  return (function* () {
    for (let i = 0; i < n; i++) {
      made.count += 1;
      yield { group: { stream: 's', series: 's\u0000a', key: 'a', ids: {} }, work: () => work(i) };
    }
  })();
}

describe('TaskQueues at a deadline', () => {
  it('counts the tasks never taken without making them', async () => {
    const made = { count: 0 };
    let done = 0;
    const queues = new TaskQueues();
    queues.addAll(
      'default',
      source(100_000, made, async () => {
        done += 1;
      }),
      100_000,
    );
    const outcome = await queues.run(
      2,
      () => 'series',
      () => done >= 10,
    );
    expect(done).toBeGreaterThanOrEqual(10);
    expect(made.count).toBeLessThanOrEqual(done + 2);
    expect(outcome.unstarted).toBe(100_000 - made.count);
  });

  it('counts a task let go while waiting for its pool', async () => {
    const made = { count: 0 };
    let passed = false;
    const queues = new TaskQueues();
    // The third task waits for its pool when the deadline passes: the scheduler lets it go with DeadlinePassed.
    queues.addAll(
      'default',
      source(50, made, async (i) => {
        if (i === 2) {
          passed = true;
          throw new DeadlinePassed();
        }
      }),
      50,
    );
    const outcome = await queues.run(
      1,
      () => 'series',
      () => passed,
    );
    expect(made.count).toBe(3);
    expect(outcome.unstarted).toBe(1 + 47);
  });

  it('counts every source of every pool when the deadline passed before the first task', async () => {
    const made = { count: 0 };
    const queues = new TaskQueues();
    queues.addAll(
      'default',
      source(5, made, async () => undefined),
      5,
    );
    queues.add('scim', { stream: 't', series: 't\u0000list', key: 'list', ids: {} }, async () => undefined);
    queues.addAll(
      'scim',
      source(7, made, async () => undefined),
      7,
    );
    const outcome = await queues.run(
      3,
      () => 'series',
      () => true,
    );
    expect(made.count).toBe(0);
    expect(outcome.unstarted).toBe(13);
  });

  it('runs every task when no deadline passes, and counts none as not started', async () => {
    const made = { count: 0 };
    let done = 0;
    const queues = new TaskQueues();
    queues.addAll(
      'default',
      source(25, made, async () => {
        done += 1;
      }),
      25,
    );
    const outcome = await queues.run(4, () => 'series');
    expect(done).toBe(25);
    expect(outcome.unstarted).toBe(0);
  });
});

describe('TaskQueues and the room of the rows', () => {
  it('takes no task while the rows have no room, and the next as soon as they have', async () => {
    const made = { count: 0 };
    let open: () => void = () => undefined;
    let closed = true;
    const queues = new TaskQueues();
    queues.addAll(
      'default',
      source(3, made, async () => undefined),
      3,
    );
    // Room is closed before the second task: it is not made until the room opens.
    const room = (): Promise<void> =>
      made.count === 1 && closed ? new Promise((resolve) => (open = resolve)) : Promise.resolve();
    const running = queues.run(
      1,
      () => 'series',
      () => false,
      room,
    );
    await new Promise((r) => setImmediate(r));
    expect(made.count).toBe(1);
    closed = false;
    open();
    const outcome = await running;
    expect(made.count).toBe(3);
    expect(outcome.unstarted).toBe(0);
  });

  it("stops the run with the room's refusal (the commits failed), starting no task after it", async () => {
    const made = { count: 0 };
    const queues = new TaskQueues();
    queues.addAll(
      'default',
      source(10, made, async () => undefined),
      10,
    );
    const room = (): Promise<void> => (made.count >= 2 ? Promise.reject(new Error('disk full')) : Promise.resolve());
    await expect(
      queues.run(
        1,
        () => 'series',
        () => false,
        room,
      ),
    ).rejects.toThrow('disk full');
    expect(made.count).toBe(2);
  });
});
