import { describe, expect, it } from 'vitest';
import { scheduleDeleteRoute } from '../../../src/emulator/writes/schedule-delete-route.js';
import { makeKit } from './people-test-kit.js';

describe('POST /messages/schedule/delete', () => {
  it('cancels a scheduled message and answers 201 success; cancelling again also succeeds', () => {
    const kit = makeKit();
    expect(kit.call(scheduleDeleteRoute, { schedule_id: 'sched_1' })).toEqual({
      status: 201,
      body: { message: 'success' },
    });
    expect(kit.workspace.people.scheduledMessages.get('sched_1')?.status).toBe('cancelled');
    expect(kit.call(scheduleDeleteRoute, { schedule_id: 'sched_1' }).status).toBe(201);
  });

  it('refuses an already sent message (400), an unknown id (404) and a missing schedule_id (400)', () => {
    const kit = makeKit();
    expect(kit.call(scheduleDeleteRoute, { schedule_id: 'sched_3' }).status).toBe(400);
    expect(kit.workspace.people.scheduledMessages.get('sched_3')?.status).toBe('sent');
    expect(kit.call(scheduleDeleteRoute, { schedule_id: 'sched_99' }).status).toBe(404);
    expect(kit.call(scheduleDeleteRoute, {}).status).toBe(400);
  });
});
