// stream_finished: once per stream, when its planned requests are done — or, for a paged list whose count is an
// estimate, only at the end of the fetch phase — with the time from the start of fetching to its last request.
import { describe, expect, it } from 'vitest';
import { StreamClock } from '../../src/pipeline/stream-clock.js';

describe('StreamClock', () => {
  it('finishes a stream with its last planned request, and each stream once', () => {
    let now = 1_000;
    const clock = new StreamClock(
      [
        { stream: 'revenue', requests: 2, estimated: false },
        { stream: 'custom_events', requests: 1, estimated: true },
      ],
      () => now,
    );
    now = 1_500;
    expect(clock.tick('revenue', 1, 10)).toBeUndefined();
    now = 2_250;
    expect(clock.tick('revenue', 1, 5)).toEqual({ stream: 'revenue', seconds: 1.25, rows: 15, requests: 2 });
    expect(clock.tick('revenue', 1, 1)).toBeUndefined();
    now = 3_000;
    expect(clock.tick('custom_events', 3, 600)).toBeUndefined();
    now = 9_000;
    expect(clock.finishRest()).toEqual([{ stream: 'custom_events', seconds: 2, rows: 600, requests: 3 }]);
    expect(clock.finishRest()).toEqual([]);
  });

  it('finishes a stream with nothing to fetch at the end of the phase, in no time', () => {
    const clock = new StreamClock([{ stream: 'segment_size', requests: 0, estimated: false }], () => 5);
    expect(clock.finishRest()).toEqual([{ stream: 'segment_size', seconds: 0, rows: 0, requests: 0 }]);
  });
});
