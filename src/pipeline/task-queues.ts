// Per-pool task queues: how a run spends each limit pool's budget without one exhausted pool stalling the others, without
// one failing series stopping the rest, and without starting work once the run's time budget is spent.
import type { PoolId } from '../api/endpoints.js';

/**
 * What a failure stops: the rest of its series (the unit of failure: a series of a stream, one object of an id-by-id
 * stream, one paged list), the rest of its stream (the key lacks the endpoint's permission: every series would meet it),
 * or the whole run.
 */
export type FailureScope = 'series' | 'stream' | 'run';

/** Which series and stream a task belongs to. */
export interface TaskGroup {
  stream: string;
  /** Unique across the run's streams: the stream and `key`. */
  series: string;
  /** The series as `status` names it: its series key, `id=<object id>`, or `list`. */
  key: string;
  /** The ids the series asks for, by parameter (`{ app_id: 'app_1' }`; `{ id: … }` for one object). */
  ids: Readonly<Record<string, string>>;
}

/** One request's work, and the series it belongs to. */
export interface Task {
  group: TaskGroup;
  work: () => Promise<void>;
}

/**
 * Thrown into the tasks still waiting for their pool when the deadline passes (Limiter.rejectWaiting): their request
 * was never sent, so they count as not started, not as failed.
 */
export class DeadlinePassed extends Error {
  constructor() {
    super('the time budget was spent before this request could be sent; the next run sends it');
    this.name = 'DeadlinePassed';
  }
}

/** The outcome of `run`: the first failure of each failed series, and the tasks never started. */
export interface QueueOutcome {
  failed: Map<string, { group: TaskGroup; error: unknown }>;
  /** Tasks not started because their series or stream had failed, by stream (a stream's series skipped so are failed too). */
  skipped: Map<string, number>;
  /**
   * Tasks not started because the deadline passed (they are the next run's work): those let go while waiting for their
   * pool, and those never taken from their queue, counted from the sizes the sources declared, not made one by one.
   */
  unstarted: number;
}

/** A source of tasks and how many it yields. */
interface Source {
  tasks: Iterator<Task>;
  size: number;
}

/**
 * One FIFO queue per limit pool, each drained by its own workers: a pool that waits for its window never holds up
 * requests of another pool. The client bounds what is in flight overall. Tasks run in the order they were added, so a
 * series queued window after window in its backfill order is cut, at a deadline, after a contiguous run of its windows.
 * A queue holds sources of tasks, not tasks: a source is read one task at a time as a worker frees up, so a plan of
 * 700,000 windows holds only the tasks being worked on, whatever the workspace's size.
 */
export class TaskQueues {
  readonly #queues = new Map<PoolId, Source[]>();

  add(pool: PoolId, group: TaskGroup, work: () => Promise<void>): void {
    this.addAll(pool, [{ group, work }], 1);
  }

  /**
   * Queues the `size` tasks of `source` after those queued before, read from it only when a worker of `pool` is free.
   * `size` is what a deadline counts as not started without making the tasks (a first backfill cut at 40 minutes
   * leaves 650,000 windows, whose tasks and luxon instants were made only to be counted).
   */
  addAll(pool: PoolId, source: Iterable<Task>, size: number): void {
    const q = this.#queues.get(pool) ?? [];
    q.push({ tasks: source[Symbol.iterator](), size });
    this.#queues.set(pool, q);
  }

  /**
   * Runs every task. `scope` decides at once what a failure stops (while other tasks may still be running); a task whose
   * turn comes after `deadline()` says true is not started (what runs finishes). A worker takes its next task only once
   * `room()` resolves (the rows staged have room: RunScheduler.rowRoom), before the task asks its pool; a rejection
   * stops the run like a failure scoped to it. Rejects with the first failure scoped to the run.
   */
  async run(
    workersPerPool: number,
    scope: (error: unknown, group: TaskGroup) => FailureScope,
    deadline: () => boolean = () => false,
    room: () => Promise<void> = () => Promise.resolve(),
  ): Promise<QueueOutcome> {
    let stopped: { error: unknown } | undefined;
    const outcome: QueueOutcome = { failed: new Map(), skipped: new Map(), unstarted: 0 };
    // The error of each stream failed as a whole: its series not yet failed fail with it.
    const failedStreams = new Map<string, unknown>();
    const count = (m: Map<string, number>, stream: string) => m.set(stream, (m.get(stream) ?? 0) + 1);
    // Each taken task counts against its source's size: what is left of the sizes when the deadline stops the workers
    // is the tasks never taken.
    const next = (queue: Source[]): Task | undefined => {
      while (queue.length > 0) {
        const source = queue[0]!;
        const step = source.tasks.next();
        if (!step.done) {
          source.size -= 1;
          return step.value;
        }
        queue.shift();
      }
      return undefined;
    };
    const take = (queue: Source[]): Task | undefined => (stopped || deadline() ? undefined : next(queue));
    // Room first, then the task: a task taken is one whose rows have room, and a deadline met while waiting takes none.
    const takeWithRoom = async (queue: Source[]): Promise<Task | undefined> => {
      try {
        await room();
      } catch (error) {
        stopped ??= { error };
      }
      return take(queue);
    };
    const worker = async (queue: Source[]) => {
      for (let task = await takeWithRoom(queue); task !== undefined; task = await takeWithRoom(queue)) {
        const { stream, series } = task.group;
        if (outcome.failed.has(series) || failedStreams.has(stream)) {
          if (!outcome.failed.has(series))
            outcome.failed.set(series, { group: task.group, error: failedStreams.get(stream) });
          count(outcome.skipped, stream);
          continue;
        }
        try {
          await task.work();
        } catch (error) {
          if (stopped) continue;
          if (error instanceof DeadlinePassed) {
            outcome.unstarted += 1;
            continue;
          }
          const s = scope(error, task.group);
          if (s === 'run') stopped = { error };
          else {
            if (!outcome.failed.has(series)) outcome.failed.set(series, { group: task.group, error });
            if (s === 'stream' && !failedStreams.has(stream)) failedStreams.set(stream, error);
          }
        }
      }
    };
    await Promise.all(
      [...this.#queues.values()].flatMap((q) => Array.from({ length: Math.max(1, workersPerPool) }, () => worker(q))),
    );
    if (stopped) throw stopped.error;
    for (const queue of this.#queues.values())
      for (const source of queue) outcome.unstarted += Math.max(0, source.size);
    return outcome;
  }
}
