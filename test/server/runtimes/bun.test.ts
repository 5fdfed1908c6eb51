// The merchant kit in Bun (the `bun` npm package's binary), against the same kit on Node.
import { describeConformance } from '../../support/runtimes/conformance.js';

describeConformance('bun', { signsWith: 'node:crypto', callsWith: 'node:http', channels: 'node:diagnostics_channel' });
