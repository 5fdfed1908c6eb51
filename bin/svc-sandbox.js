#!/usr/bin/env node
// The svc-sandbox command; its code is compiled to dist/ by `npm run build`.
import { main } from '../dist/sandbox/cli.js';

process.exitCode = await main(process.argv.slice(2));
