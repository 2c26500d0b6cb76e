// Per-pool task queues: how a run spends each limit pool's budget without one exhausted pool stalling the others.
import type { PoolId } from '../api/endpoints.js';

/**
 * One FIFO queue per limit pool, each drained by its own workers: a pool that waits for its window never holds up
 * requests of another pool. The client bounds what is in flight overall. The first failure stops new work.
 */
export class TaskQueues {
  readonly #queues = new Map<PoolId, (() => Promise<void>)[]>();

  add(pool: PoolId, task: () => Promise<void>): void {
    const q = this.#queues.get(pool) ?? [];
    q.push(task);
    this.#queues.set(pool, q);
  }

  /** Runs every task; `onFailure` hears the first failure at once (while other tasks may still be running). */
  async run(workersPerPool: number, onFailure: (error: unknown) => void = () => undefined): Promise<void> {
    let failure: { error: unknown } | undefined;
    const worker = async (queue: (() => Promise<void>)[]) => {
      while (!failure && queue.length > 0) {
        const task = queue.shift()!;
        try {
          await task();
        } catch (error) {
          if (!failure) {
            failure = { error };
            onFailure(error);
          }
        }
      }
    };
    await Promise.all([...this.#queues.values()].flatMap((q) => Array.from({ length: Math.max(1, workersPerPool) }, () => worker(q))));
    if (failure) throw failure.error;
  }
}

