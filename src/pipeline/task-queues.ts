// Per-pool task queues: how a run spends each limit pool's budget without one exhausted pool stalling the others, and
// without one failing stream stopping the rest.
import type { PoolId } from '../api/endpoints.js';

/** What a failure stops: only the tasks of its group (a stream that cannot complete), or the whole run. */
export type FailureScope = 'group' | 'run';

interface Task {
  group: string;
  work: () => Promise<void>;
}

/**
 * One FIFO queue per limit pool, each drained by its own workers: a pool that waits for its window never holds up
 * requests of another pool. The client bounds what is in flight overall. Every task belongs to a group (its stream):
 * a failure the caller scopes to the group skips that group's queued tasks and lets the others run on; a failure
 * scoped to the run stops new work everywhere.
 */
export class TaskQueues {
  readonly #queues = new Map<PoolId, Task[]>();

  add(pool: PoolId, group: string, work: () => Promise<void>): void {
    const q = this.#queues.get(pool) ?? [];
    q.push({ group, work });
    this.#queues.set(pool, q);
  }

  /**
   * Runs every task. `scope` decides at once what a failure stops (while other tasks may still be running). Resolves
   * with the first failure of each failed group; rejects with the first failure scoped to the run.
   */
  async run(workersPerPool: number, scope: (error: unknown, group: string) => FailureScope): Promise<Map<string, unknown>> {
    let stopped: { error: unknown } | undefined;
    const failedGroups = new Map<string, unknown>();
    const worker = async (queue: Task[]) => {
      while (!stopped && queue.length > 0) {
        const task = queue.shift()!;
        if (failedGroups.has(task.group)) continue;
        try {
          await task.work();
        } catch (error) {
          if (stopped) continue;
          if (scope(error, task.group) === 'run') stopped = { error };
          else if (!failedGroups.has(task.group)) failedGroups.set(task.group, error);
        }
      }
    };
    await Promise.all([...this.#queues.values()].flatMap((q) => Array.from({ length: Math.max(1, workersPerPool) }, () => worker(q))));
    if (stopped) throw stopped.error;
    return failedGroups;
  }
}
