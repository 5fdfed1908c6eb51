#!/usr/bin/env node
// The svc-checkout command: `init [folder]` writes a shop of one's own, `link` prints a payment link, `sandbox` runs the sandbox (as svc-sandbox,
// for `npx svc-checkout sandbox` outside a project, where `npx svc-sandbox` would look for another package).
// Its code is compiled to dist/ by `npm run build`.
const [command, ...rest] = process.argv.slice(2);
const USAGE = `Usage: svc-checkout <command>

  init [folder]   write a shop: an Express server with the merchant kit and <svc-checkout>, run beside a sandbox
  link            print a payment link for one checkout (svc-checkout link --help)
  sandbox         run the sandbox, the payment service on this machine (svc-sandbox --help)
`;

if (command === 'init') {
  const { main } = await import('../dist/scaffold/init.js');
  process.exitCode = await main(rest);
} else if (command === 'link') {
  const { main } = await import('../dist/scaffold/link.js');
  process.exitCode = await main(rest);
} else if (command === 'sandbox') {
  const { main } = await import('../dist/sandbox/cli.js');
  process.exitCode = await main(rest);
} else if (command === undefined || command === '--help' || command === 'help') {
  process.stdout.write(USAGE);
} else {
  process.stderr.write(`svc-checkout: no command ${command}\n\n${USAGE}`);
  process.exitCode = 2;
}
