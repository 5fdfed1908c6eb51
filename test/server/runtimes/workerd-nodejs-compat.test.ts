// The merchant kit in workerd with the nodejs_compat flag, which many Workers turn on: there workerd has Node's
// modules, and the kit signs with node:crypto and calls the service over node:http, as on Node and Deno.
import { describeConformance } from '../../support/runtimes/conformance.js';

describeConformance('workerd-nodejs-compat', { signsWith: 'node:crypto', callsWith: 'node:http', channels: 'node:diagnostics_channel' });
