// PLACEHOLDER — owned by the emulator-analytics helper; replaced wholesale.
export interface AnalyticsWorkspace {
  seed: number;
}

export function generateAnalytics(seed: number): AnalyticsWorkspace {
  return { seed };
}
