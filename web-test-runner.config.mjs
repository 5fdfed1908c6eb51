// Browser suites (test/browser) in real Chromium and Firefox from Debian's packages, driven by puppeteer-core.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher, puppeteerCore } from '@web/test-runner-chrome';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const firefoxPath = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

// Without these, Chromium reaches for Google's hosts at start and floods a closed network; root needs --no-sandbox.
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export default {
  files: 'test/browser/**/*.test.ts',
  nodeResolve: true,
  plugins: [esbuildPlugin({ ts: true, target: 'es2022' })],
  browsers: [
    chromeLauncher({ puppeteer: puppeteerCore, launchOptions: { executablePath: chromiumPath, args: chromiumArgs } }),
    chromeLauncher({ puppeteer: puppeteerCore, launchOptions: { browser: 'firefox', executablePath: firefoxPath } }),
  ],
  testFramework: { config: { timeout: 20000 } },
  browserStartTimeout: 60000,
  testsFinishTimeout: 300000,
};
