// Scheduled messages of the emulated workspace, cancelled by POST /messages/schedule/delete (spec 3, 4.17).

export type ScheduleStatus = 'scheduled' | 'sent' | 'cancelled';

export interface ScheduledMessage {
  readonly schedule_id: string;
  readonly name: string;
  /** When the message is (or was) due, ISO 8601. */
  readonly send_at: string;
  status: ScheduleStatus;
}

/** `sched_1`…`sched_5`: all scheduled except `sched_3`, which was already sent (cancelling it must fail). */
export function generateScheduledMessages(): ScheduledMessage[] {
  return [1, 2, 3, 4, 5].map((n) => ({
    schedule_id: `sched_${n}`,
    name: `Campaign send ${n}`,
    send_at: n === 3 ? '2024-01-15T10:00:00.000Z' : `2030-0${n}-01T10:00:00.000Z`,
    status: n === 3 ? 'sent' : 'scheduled',
  }));
}
