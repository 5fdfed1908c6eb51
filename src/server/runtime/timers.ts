/** The runtime's own timers, which the status streams schedule with unless the shop gives others (`timers`). */
import type { Timers } from '../../core/index.js';

export const systemTimers: Timers = {
  setTimeout: (callback, milliseconds) => setTimeout(callback, milliseconds),
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
};
