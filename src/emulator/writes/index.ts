// PLACEHOLDER — owned by the emulator-people helper: every write route (and the SCIM look-ups).
import type { Route } from '../route.js';

export const WRITE_ROUTES: readonly Route[] = [];
