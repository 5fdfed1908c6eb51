// A web-test-runner browser launcher for WebKitGTK: Debian's MiniBrowser, driven over W3C WebDriver (classic,
// plain HTTP) by Debian's WebKitWebDriver, shown on an Xvfb display of its own (MiniBrowser 2.50 has no headless
// mode). It starts Xvfb and WebKitWebDriver, opens one WebDriver session, runs one test file at a time in its
// window, and at the end stops both processes (and whatever they started) by their pid.
//
// Name other binaries with WEBKIT_WEBDRIVER_PATH, XVFB_PATH and MINIBROWSER_PATH. Its `type` is 'webdriver' and it
// has `sendKeys(sessionId, keys)`, which is what @web/test-runner-commands' sendKeys needs; emulateMedia and
// setViewport are not available (they need Puppeteer or Playwright).
import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { createServer } from 'node:net';

const MINIBROWSER_CANDIDATES = [
  '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
  '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
  '/usr/lib/x86_64-linux-gnu/webkitgtk-6.0/MiniBrowser',
  '/usr/lib/aarch64-linux-gnu/webkitgtk-6.0/MiniBrowser',
  '/usr/libexec/webkit2gtk-4.1/MiniBrowser',
  '/usr/libexec/webkitgtk-6.0/MiniBrowser',
];

// --automation: MiniBrowser obeys WebKitWebDriver. Pop-ups are let through, as Puppeteer lets them through in
// Chromium (--disable-popup-blocking) and Firefox: a test clicks with element.click(), which is no user gesture,
// and the tests of a blocked window stub window.open themselves.
const BROWSER_ARGS = ['--automation', '--javascript-can-open-windows-automatically=true'];

// The W3C WebDriver code points of the keys a test may name the way Puppeteer names them.
const KEYS = {
  Cancel: '\uE001', Help: '\uE002', Backspace: '\uE003', Tab: '\uE004', Clear: '\uE005', Enter: '\uE007',
  Shift: '\uE008', Control: '\uE009', Alt: '\uE00A', Pause: '\uE00B', Escape: '\uE00C', Space: ' ',
  PageUp: '\uE00E', PageDown: '\uE00F', End: '\uE010', Home: '\uE011', ArrowLeft: '\uE012', ArrowUp: '\uE013',
  ArrowRight: '\uE014', ArrowDown: '\uE015', Insert: '\uE016', Delete: '\uE017', Meta: '\uE03D',
  F1: '\uE031', F2: '\uE032', F3: '\uE033', F4: '\uE034', F5: '\uE035', F6: '\uE036',
  F7: '\uE037', F8: '\uE038', F9: '\uE039', F10: '\uE03A', F11: '\uE03B', F12: '\uE03C',
};

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

async function executable(path) {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Keeps the last lines a process wrote, for the error when it fails. */
function tail(stream, lines = 40) {
  const kept = [];
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk) => {
    kept.push(...chunk.split('\n').filter(Boolean));
    kept.splice(0, Math.max(0, kept.length - lines));
  });
  return () => kept.join('\n');
}

function exited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitForExit(child, timeoutMs) {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

/** Stops a process started with `detached: true` and everything in its process group: TERM, then KILL. */
async function stopGroup(child) {
  if (!child?.pid) return;
  if (!exited(child)) {
    signal(-child.pid, 'SIGTERM');
    if (!(await waitForExit(child, STOP_TIMEOUT_MS))) {
      signal(-child.pid, 'SIGKILL');
      await waitForExit(child, STOP_TIMEOUT_MS);
    }
  }
  // Children that outlive the leader (WebKit's network and web processes) are still in its group; they take a
  // moment to go, even killed.
  signal(-child.pid, 'SIGKILL');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (groupAlive(child.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts Xvfb on the first free display (-displayfd) and answers its number. */
async function startXvfb(xvfbPath) {
  const child = spawn(xvfbPath, ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp', '-noreset'], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const stderr = tail(child.stderr);
  const display = await new Promise((resolve, reject) => {
    let text = '';
    const fail = (why) => {
      clearTimeout(timer);
      reject(new Error(`WebKit: Xvfb (${xvfbPath}) ${why}\n${stderr()}`));
    };
    const timer = setTimeout(() => fail(`gave no display within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once('error', (error) => fail(`did not start: ${error.message}`));
    child.once('exit', (code, name) => fail(`exited (${name ?? code}) before giving a display`));
    child.stdio[3].setEncoding('utf8');
    child.stdio[3].on('data', (chunk) => {
      text += chunk;
      const match = /^(\d+)\n/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  }).catch(async (error) => {
    await stopGroup(child);
    throw error;
  });
  child.removeAllListeners('exit');
  child.stdio[3].destroy();
  child.unref();
  return { child, display: `:${display}` };
}

export class WebKitGtkLauncher {
  name = 'WebKit';
  type = 'webdriver';
  // One window, one page at a time.
  concurrency = 1;

  #options;
  #xvfb;
  #driver;
  #port;
  #session;
  #driverLog = () => '';
  #urls = new Map();
  // web-test-runner may exit the process before stop() is through (it does not always wait for the last
  // browser's stop): then kill both process groups at once, even when their leaders have exited already.
  #onExit = () => {
    for (const child of [this.#driver, this.#xvfb?.child]) if (child?.pid) signal(-child.pid, 'SIGKILL');
  };
  // Killed with SIGTERM or SIGHUP, Node exits without an 'exit' event: kill them then, and let the signal do
  // what it would have done.
  #onSignal = (name) => {
    this.#onExit();
    this.#removeHooks();
    if (process.listenerCount(name) === 0) process.kill(process.pid, name);
  };

  #addHooks() {
    process.once('exit', this.#onExit);
    process.once('SIGTERM', this.#onSignal);
    process.once('SIGHUP', this.#onSignal);
  }

  #removeHooks() {
    process.removeListener('exit', this.#onExit);
    process.removeListener('SIGTERM', this.#onSignal);
    process.removeListener('SIGHUP', this.#onSignal);
  }

  constructor(options = {}) {
    this.#options = options;
  }

  async initialize() {
    const webdriverPath = this.#options.webdriverPath ?? process.env.WEBKIT_WEBDRIVER_PATH ?? '/usr/bin/WebKitWebDriver';
    const xvfbPath = this.#options.xvfbPath ?? process.env.XVFB_PATH ?? '/usr/bin/Xvfb';
    const missing = [];
    if (!(await executable(webdriverPath))) missing.push(`${webdriverPath} (Debian: webkit2gtk-driver; or set WEBKIT_WEBDRIVER_PATH)`);
    if (!(await executable(xvfbPath))) missing.push(`${xvfbPath} (Debian: xvfb; or set XVFB_PATH)`);
    const miniBrowser = await this.#miniBrowser();
    if (!miniBrowser) missing.push(`MiniBrowser (Debian: libwebkit2gtk-4.1-0; or set MINIBROWSER_PATH)`);
    if (missing.length > 0) {
      throw new Error(
        `WebKit: the browser suites run in WebKitGTK too, and this machine lacks:\n  ${missing.join('\n  ')}\n` +
          'On Debian: apt-get install -y webkit2gtk-driver xvfb (.ci/run does it).',
      );
    }
    this.#addHooks();
    try {
      this.#xvfb = await startXvfb(xvfbPath);
      await this.#startDriver(webdriverPath, this.#xvfb.display);
      const created = await this.#request('POST', '/session', {
        capabilities: {
          alwaysMatch: {
            browserName: 'MiniBrowser',
            pageLoadStrategy: 'normal',
            timeouts: { script: 30_000, pageLoad: 60_000, implicit: 0 },
            'webkitgtk:browserOptions': { binary: miniBrowser, args: [...BROWSER_ARGS, ...(this.#options.args ?? [])] },
          },
        },
      }, START_TIMEOUT_MS);
      this.#session = created.sessionId;
      // Puppeteer's default viewport, which Chromium and Firefox get: the window, less MiniBrowser's toolbar.
      await this.#request('POST', this.#path('/window/rect'), { width: 800, height: 600 });
      const [width, height] = await this.#request('POST', this.#path('/execute/sync'), { script: 'return [innerWidth, innerHeight]', args: [] });
      if (width !== 800 || height !== 600) {
        await this.#request('POST', this.#path('/window/rect'), { width: 800 + 800 - width, height: 600 + 600 - height });
      }
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  async #miniBrowser() {
    const named = this.#options.miniBrowserPath ?? process.env.MINIBROWSER_PATH;
    if (named) return (await executable(named)) ? named : undefined;
    for (const candidate of MINIBROWSER_CANDIDATES) if (await executable(candidate)) return candidate;
    return undefined;
  }

  async #startDriver(webdriverPath, display) {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const env = { ...process.env, DISPLAY: display, GDK_BACKEND: 'x11', NO_AT_BRIDGE: '1' };
      delete env.WAYLAND_DISPLAY;
      const child = spawn(webdriverPath, [`--port=${port}`, '--host=127.0.0.1'], { detached: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
      const stdout = tail(child.stdout);
      const stderr = tail(child.stderr);
      this.#driverLog = () => [stdout(), stderr()].filter(Boolean).join('\n');
      child.unref();
      this.#driver = child;
      this.#port = port;
      const deadline = Date.now() + START_TIMEOUT_MS;
      let startError;
      child.once('error', (error) => {
        startError = error;
      });
      for (;;) {
        if (startError) throw new Error(`WebKit: ${webdriverPath} did not start: ${startError.message}`);
        if (exited(child)) break;
        try {
          const response = await fetch(`http://127.0.0.1:${port}/status`, { signal: AbortSignal.timeout(1_000) });
          if (response.ok) return;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) {
          await stopGroup(child);
          throw new Error(`WebKit: ${webdriverPath} did not answer on port ${port} within ${START_TIMEOUT_MS} ms\n${this.#driverLog()}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Exited: most likely the port was taken between choosing it and binding it. Try another, twice.
      if (attempt >= 3) {
        throw new Error(`WebKit: ${webdriverPath} exited (${child.signalCode ?? child.exitCode})\n${this.#driverLog()}`);
      }
    }
  }

  #path(suffix = '') {
    return `/session/${this.#session}${suffix}`;
  }

  async #request(method, path, body, timeoutMs = 70_000) {
    let response;
    try {
      response = await fetch(`http://127.0.0.1:${this.#port}${path}`, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json; charset=utf-8' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new Error(`WebKit: WebKitWebDriver ${method} ${path} failed: ${error.message}\n${this.#driverLog()}`);
    }
    const text = await response.text();
    let answer;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new Error(`WebKit: WebKitWebDriver ${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    }
    const value = answer?.value;
    if (!response.ok || value?.error) {
      throw new Error(`WebKit: WebKitWebDriver ${method} ${path}: ${value?.error ?? response.status}: ${value?.message ?? text.slice(0, 500)}`);
    }
    return value;
  }

  async stop() {
    const session = this.#session;
    this.#session = undefined;
    this.#urls.clear();
    if (session && this.#driver && !exited(this.#driver)) {
      try {
        await this.#request('DELETE', `/session/${session}`, undefined, STOP_TIMEOUT_MS);
      } catch {
        // stopped below in any case
      }
    }
    await stopGroup(this.#driver);
    await stopGroup(this.#xvfb?.child);
    this.#driver = undefined;
    this.#xvfb = undefined;
    this.#removeHooks();
  }

  async startSession(sessionId, url) {
    if (!this.#session) throw new Error('WebKit: no WebDriver session (was the launcher initialized?)');
    this.#urls.set(sessionId, url);
    await this.#request('POST', this.#path('/url'), { url });
  }

  isActive(sessionId) {
    return this.#urls.has(sessionId);
  }

  getBrowserUrl(sessionId) {
    return this.#urls.get(sessionId);
  }

  async stopSession(sessionId) {
    this.#urls.delete(sessionId);
    // Leave the page, so that nothing of this test file keeps running under the next.
    if (this.#session) await this.#request('POST', this.#path('/url'), { url: 'about:blank' });
    return {};
  }

  async startDebugSession() {
    throw new Error('WebKit: debugging is not supported by this launcher; run `wtr --manual` and open the page in a WebKit browser.');
  }

  /**
   * Runs `body` (a function's body, given `args`) in the document of the first frame whose address contains `address`,
   * however deep it sits in the page (through shadow roots, and same-origin frames on the way), whatever its origin:
   * a WebDriver session switches into a frame as a payer's focus does, where the page's own scripts cannot go. Answers
   * `{ value }`, what `body` returns (or `{ error }`, what it threw; `{ missing: true }` when there is no such frame),
   * and goes back to the page.
   */
  async evaluateInFrame(_sessionId, address, body, args = []) {
    // The frames on the way, outermost first: found from the page down, each one switched into before the next.
    const find = `const [address] = arguments;
      const frames = (root) => [...root.querySelectorAll('iframe')].concat([...root.querySelectorAll('*')].flatMap((node) => node.shadowRoot ? frames(node.shadowRoot) : []));
      const all = frames(document);
      const target = all.find((frame) => frame.src.includes(address));
      if (target) return { frame: target, last: true };
      const holder = all.find((frame) => { try { const inner = (doc) => frames(doc).some((f) => f.src.includes(address) || (f.contentDocument && inner(f.contentDocument))); return frame.contentDocument && inner(frame.contentDocument); } catch { return false; } });
      return holder ? { frame: holder, last: false } : null;`;
    try {
      for (let depth = 0; depth < 5; depth++) {
        const found = await this.#request('POST', this.#path('/execute/sync'), { script: find, args: [address] });
        if (!found) return { missing: true };
        await this.#request('POST', this.#path('/frame'), { id: found.frame });
        if (found.last) return await this.#request('POST', this.#path('/execute/async'), { script: `const done = arguments[arguments.length - 1]; Promise.resolve((async (...args) => { ${body} })(...[...arguments].slice(0, -1))).then((value) => done({ value }), (error) => done({ error: String(error) }));`, args });
      }
      return { missing: true };
    } catch (error) {
      // A frame that goes while it is asked (its step moved on) is one that is not there.
      if (/stale element|no such (?:frame|window)/.test(error.message)) return { missing: true };
      throw error;
    } finally {
      await this.#request('POST', this.#path('/frame'), { id: null }).catch(() => undefined);
    }
  }

  /** For @web/test-runner-commands' sendKeys: each entry is one key press, a character or a key named as Puppeteer names it (or a chord, Shift+Tab). */
  async sendKeys(_sessionId, keys) {
    const actions = [];
    for (const entry of keys) {
      const chord = entry.length > 1 && entry.includes('+') ? entry.split('+') : [entry];
      const values = chord.map((key) => {
        if ([...key].length === 1) return key;
        const value = KEYS[key];
        if (!value) throw new Error(`WebKit: sendKeys does not know the key "${key}"`);
        return value;
      });
      for (const value of values) actions.push({ type: 'keyDown', value });
      for (const value of [...values].reverse()) actions.push({ type: 'keyUp', value });
    }
    await this.#request('POST', this.#path('/actions'), { actions: [{ type: 'key', id: 'keyboard', actions }] });
    await this.#request('DELETE', this.#path('/actions'));
  }
}

export function webkitGtkLauncher(options) {
  return new WebKitGtkLauncher(options);
}
