// The merchant kit in Deno (the `deno` npm package's binary), against the same kit on Node.
import { describeConformance } from '../../support/runtimes/conformance.js';

describeConformance('deno', { signsWith: 'node:crypto', callsWith: 'node:http', channels: 'node:diagnostics_channel' });
