// End-to-end driver: real VS Code (code-server) in headless Chromium, with the extension's
// test suite running inside the real extension host.
//
//   node e2e/driver.mjs CONFIG.json
//
// The suite (out/test/suite.js) runs the scenarios with the VS Code API and asks this driver,
// over a small HTTP endpoint on 127.0.0.1, for what only a user can do: type into the chat
// panel, click its buttons, use the editor's context menu and the quick input, look at the
// Problems panel and the status bar, take screenshots. When the suite reports its results the
// driver shuts everything down and exits 0 only if every test passed.
//
// A suite may ask for a real window reload half-way: it reports its first results with
// `reload: true` and reloads the window; VS Code then runs the suite again in the new extension
// host, which reads `phase` (one more than before) from GET /config and carries on.
//
// CONFIG: { harnessDir, extensionDir, suitePath, workspace, runDir, artifactsDir,
//           settings: {...}, env: {...}, context: {...}, timeoutMs, vsix? }
// `context` is handed to the suite as is (GET /config). With `vsix`, the extension is installed
// from that package (as a user installs it) and `extensionDir` is an empty host extension the
// suite runs beside.

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { createServer as createNetServer } from 'node:net';
import { dirname, join } from 'node:path';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const require = createRequire(join(config.harnessDir, 'package.json'));
const { chromium } = require('playwright-core');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const started = Date.now();
const say = (text) => console.log(`[driver +${((Date.now() - started) / 1000).toFixed(1)}s] ${text}`);

mkdirSync(config.artifactsDir, { recursive: true });
mkdirSync(config.runDir, { recursive: true });

// -- settings and dirs ----------------------------------------------------------------------
const userData = join(config.runDir, 'ud');
mkdirSync(join(userData, 'User'), { recursive: true });

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// -- the suite's endpoint -------------------------------------------------------------------
let page;
let browser;
let resolveDone;
const done = new Promise((r) => (resolveDone = r));
let phase = 0;
const earlierResults = [];
const suiteLog = createWriteStream(join(config.artifactsDir, 'suite.log'));

async function chatFrame(timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      try {
        const isChat = await frame.evaluate(
          () => !!document.getElementById('log') && !!document.getElementById('input') && !!document.getElementById('toolbar'),
        );
        if (isChat) return frame;
      } catch {
        // a frame that went away while we looked
      }
    }
    await sleep(200);
  }
  throw new Error('the Codex chat webview did not show up');
}

/** Wait in `frame` until an element matching `selector` exists and (if given) holds `text`. */
async function waitIn(frame, { selector, text, absent, timeoutMs = 60000 }) {
  await frame.waitForFunction(
    ({ selector, text, absent }) => {
      if (absent) return !document.querySelector(absent);
      const roots = selector ? Array.from(document.querySelectorAll(selector)) : [document.body];
      return roots.some((root) => text === undefined || (root.textContent ?? '').includes(text));
    },
    { selector, text, absent },
    { timeout: timeoutMs, polling: 100 },
  );
}

const ops = {
  async 'chat.waitFor'(args) {
    await waitIn(await chatFrame(), args);
    return true;
  },
  async 'chat.click'({ selector }) {
    const frame = await chatFrame();
    await frame.locator(selector).first().click({ timeout: 30000 });
    return true;
  },
  async 'chat.select'({ selector, value }) {
    const frame = await chatFrame();
    await frame.locator(selector).first().selectOption(value, { timeout: 30000 });
    return true;
  },
  async 'chat.fill'({ selector, text }) {
    const frame = await chatFrame();
    await frame.locator(selector).first().fill(text, { timeout: 30000 });
    return true;
  },
  async 'chat.type'({ selector, text }) {
    const frame = await chatFrame();
    await frame.locator(selector).first().pressSequentially(text, { timeout: 30000 });
    return true;
  },
  async 'chat.press'({ selector, key }) {
    const frame = await chatFrame();
    await frame.locator(selector).first().press(key, { timeout: 30000 });
    return true;
  },
  /** Scroll the conversation to its top, as a user reading back would. */
  async 'chat.scrollTop'() {
    const frame = await chatFrame();
    await frame.evaluate(() => {
      document.getElementById('log').scrollTop = 0;
    });
    return true;
  },
  /** Whether the element is inside the conversation's visible area. */
  async 'chat.inView'({ selector }) {
    const frame = await chatFrame();
    return frame.evaluate((sel) => {
      const el = document.querySelector(sel);
      const log = document.getElementById('log');
      if (!el || !log) return false;
      const a = el.getBoundingClientRect();
      const b = log.getBoundingClientRect();
      return a.bottom > b.top && a.top < b.bottom;
    }, selector);
  },
  async 'chat.send'({ text }) {
    const frame = await chatFrame();
    await frame.waitForFunction(() => !document.getElementById('send').disabled, null, { timeout: 60000, polling: 100 });
    await frame.fill('#input', text);
    await frame.press('#input', 'Enter');
    return true;
  },
  async 'chat.query'({ selector }) {
    const frame = await chatFrame();
    return frame.evaluate((sel) => Array.from(document.querySelectorAll(sel)).map((el) => el.textContent ?? ''), selector);
  },
  async 'chat.eval'({ expression }) {
    const frame = await chatFrame();
    return frame.evaluate(expression);
  },
  async 'chat.html'() {
    const frame = await chatFrame();
    return frame.evaluate(() => document.getElementById('log').innerHTML);
  },
  async 'chat.csp'() {
    const frame = await chatFrame();
    return frame.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '');
  },
  async 'page.waitFor'(args) {
    await waitIn(page.mainFrame(), args);
    return true;
  },
  async 'page.click'({ selector }) {
    await page.locator(selector).first().click({ timeout: 30000 });
    return true;
  },
  async 'page.press'({ key }) {
    await page.keyboard.press(key);
    return true;
  },
  /** Drag the side bar's edge, as a user resizes it, to `width` px (VS Code keeps it ≥ 170). */
  async 'page.resizeSidebar'({ width }) {
    const box = await page.locator('[id="workbench.parts.sidebar"]').boundingBox();
    if (!box) throw new Error('no side bar');
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width, y);
    await page.mouse.down();
    await page.mouse.move(box.x + width, y, { steps: 8 });
    await page.mouse.up();
    return (await page.locator('[id="workbench.parts.sidebar"]').boundingBox())?.width;
  },
  async 'page.query'({ selector }) {
    return page.evaluate((sel) => Array.from(document.querySelectorAll(sel)).map((el) => el.textContent ?? ''), selector);
  },
  /**
   * Open the active editor's context menu at the cursor (Shift+F10 keeps the selection, where a
   * right-click elsewhere would move it) and click the item at the end of `path`. Labels before
   * the last are submenus; one that is not in the menu is skipped.
   */
  async 'editor.contextMenu'({ path }) {
    await page.locator('.editor-group-container.active .monaco-editor textarea, .editor-group-container.active .monaco-editor .native-edit-context').first().focus();
    await page.keyboard.press('Shift+F10');
    const menuItem = (label) => page.locator('.monaco-menu .action-menu-item', { hasText: label }).last();
    await page.locator('.monaco-menu').first().waitFor({ timeout: 30000 });
    for (const [n, label] of path.entries()) {
      const item = menuItem(label);
      if (n < path.length - 1) {
        if (!(await item.isVisible().catch(() => false))) continue;
        await item.hover();
        continue;
      }
      // Hovered, the item has the menu's focus; Enter runs it (a click can land mid-animation).
      await item.hover({ timeout: 30000 });
      await page.keyboard.press('Enter');
    }
    return true;
  },
  /** Press `key` in the active editor (its text area focused first). */
  async 'editor.press'({ key }) {
    await page.locator('.editor-group-container.active .monaco-editor textarea, .editor-group-container.active .monaco-editor .native-edit-context').first().focus();
    await page.keyboard.press(key);
    return true;
  },
  /** The text decorations add after the elements matching `selector` (CSS `::after` content). */
  async 'page.afterTexts'({ selector }) {
    return page.evaluate(
      (sel) =>
        Array.from(document.querySelectorAll(sel))
          .map((el) => getComputedStyle(el, '::after').content)
          .filter((c) => c && c !== 'none'),
      selector,
    );
  },
  /** Type where the keyboard's focus is, key by key, as a user does. */
  async 'page.type'({ text }) {
    await page.keyboard.type(text, { delay: 10 });
    return true;
  },
  /** Wait until the keyboard's focus is inside an element matching `selector`. */
  async 'page.waitForFocus'({ selector, timeoutMs = 30000 }) {
    try {
      await page.waitForFunction((sel) => !!document.activeElement?.closest(sel), selector, { timeout: timeoutMs, polling: 100 });
    } catch (err) {
      const where = await page.evaluate(() => {
        const chain = [];
        for (let el = document.activeElement; el && chain.length < 8; el = el.parentElement) chain.push(`${el.tagName}.${el.className}`);
        return chain.join(' < ');
      });
      throw new Error(`${err.message}; the focus is in ${where}`);
    }
    return true;
  },
  /** Type into the quick input (an input box or a quick pick) and accept with Enter. */
  async 'quickInput.accept'({ text }) {
    const box = page.locator('.quick-input-widget .quick-input-box input');
    await box.waitFor({ state: 'visible', timeout: 30000 });
    if (text !== undefined) await box.fill(text);
    await box.press('Enter');
    return true;
  },
  /**
   * Pick a file in VS Code's own open dialog by typing its path. The dialog lists the folder it
   * opens on and completes a typed path as it goes, both after a delay; a path typed before the
   * listing arrives is overwritten by it, and Enter while it completes opens a folder or nothing.
   * So type the path until the dialog closes on it, as a user who saw it ignored would.
   */
  async 'fileDialog.pick'({ path }) {
    const widget = page.locator('.quick-input-widget');
    const box = widget.locator('.quick-input-box input');
    await box.waitFor({ state: 'visible', timeout: 30000 });
    for (let attempt = 1; attempt <= 6; attempt++) {
      await box.fill(path);
      await page.waitForTimeout(300 * attempt);
      if ((await box.inputValue()) !== path) continue;
      await box.press('Enter');
      try {
        await widget.waitFor({ state: 'hidden', timeout: 3000 * attempt });
        return true;
      } catch {
        say(`the file dialog stayed open on ${JSON.stringify(await box.inputValue())} (attempt ${attempt})`);
      }
    }
    throw new Error(`the file dialog did not take ${path}`);
  },
  async screenshot({ name, selector }) {
    const path = join(config.artifactsDir, `${name}.png`);
    if (selector) await page.locator(selector).first().screenshot({ path });
    else await page.screenshot({ path });
    say(`screenshot ${path}`);
    return path;
  },
  async log({ text }) {
    suiteLog.write(`${text}\n`);
    console.log(`[suite] ${text}`);
    return true;
  },
};

const rpc = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', async () => {
    const reply = (status, payload) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    try {
      if (req.method === 'GET' && req.url === '/config') {
        phase += 1;
        say(`the suite starts (phase ${phase})`);
        return reply(200, { ...(config.context ?? {}), phase });
      }
      const message = body ? JSON.parse(body) : {};
      if (req.url === '/done') {
        earlierResults.push(...(message.tests ?? []));
        if (message.reload) say('the suite reloads the window');
        else resolveDone({ tests: earlierResults });
        return reply(200, { ok: true });
      }
      const op = ops[message.op];
      if (!op) return reply(400, { error: `unknown op ${message.op}` });
      const result = await op(message.args ?? {});
      reply(200, { result });
    } catch (err) {
      reply(200, { error: String(err?.message ?? err) });
    }
  });
});
await new Promise((r) => rpc.listen(0, '127.0.0.1', r));
const rpcUrl = `http://127.0.0.1:${rpc.address().port}`;

const settings = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'security.workspace.trust.enabled': false,
  'files.hotExit': 'off',
  'window.restoreWindows': 'none',
  'chat.disableAIFeatures': true,
  ...config.settings,
  'codexE2E.driverUrl': rpcUrl,
};
// The settings go where a user of code-server puts them: the User settings (the browser
// side's); the Remote ("Machine") settings stay empty.
writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));

// -- code-server ----------------------------------------------------------------------------
const port = await freePort();
const extensionsDir = join(config.runDir, 'ext');
const codeServerLog = createWriteStream(join(config.artifactsDir, 'code-server.log'));
const entry = join(config.harnessDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const env = {
  ...process.env,
  ...config.env,
  CODEX_E2E_DRIVER: rpcUrl,
  XDG_CONFIG_HOME: join(config.runDir, 'xdg-config'),
  XDG_DATA_HOME: join(config.runDir, 'xdg-data'),
  XDG_CACHE_HOME: join(config.runDir, 'xdg-cache'),
  // code-server's helpers start `node`: make it this Node 24.
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
};
if (config.vsix) {
  // As `code --install-extension`: the .vsix built the way the README says.
  const install = spawnSync(
    process.execPath,
    [entry, '--user-data-dir', userData, '--extensions-dir', extensionsDir, '--install-extension', config.vsix],
    { env, encoding: 'utf8', timeout: 120000 },
  );
  codeServerLog.write(`${install.stdout ?? ''}${install.stderr ?? ''}`);
  if (install.status !== 0) {
    console.error(`[driver] code-server could not install ${config.vsix}: ${install.stderr}`);
    process.exit(1);
  }
  say(`installed ${config.vsix}`);
}
const codeServer = spawn(
  process.execPath,
  [
    entry,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--user-data-dir', userData,
    '--extensions-dir', extensionsDir,
    '--vscode-option', 'enable-smoke-test-driver',
    config.workspace,
  ],
  { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
);
codeServer.stdout.pipe(codeServerLog);
codeServer.stderr.pipe(codeServerLog);
let codeServerExited = false;
codeServer.on('exit', () => (codeServerExited = true));

async function stopCodeServer() {
  if (codeServerExited) return;
  try {
    process.kill(-codeServer.pid, 'SIGTERM');
  } catch {}
  // Its children (extension host, our language server) linger a little: wait, then insist.
  for (let i = 0; i < 50 && !codeServerExited; i++) await sleep(100);
  try {
    process.kill(-codeServer.pid, 'SIGKILL');
  } catch {}
}

let exitCode = 1;
let results;
try {
  const base = `http://127.0.0.1:${port}`;
  say(`code-server on ${base}, suite endpoint ${rpcUrl}`);
  const healthy = Date.now() + 60000;
  for (;;) {
    if (codeServerExited) throw new Error('code-server exited while starting; see code-server.log');
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {}
    if (Date.now() > healthy) throw new Error('code-server did not answer /healthz within 60 s');
    await sleep(200);
  }
  say('code-server is up');

  browser = await chromium.launch({
    executablePath: config.chromium ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await context.newPage();
  const consoleLog = createWriteStream(join(config.artifactsDir, 'browser-console.log'));
  page.on('console', (m) => consoleLog.write(`[${m.type()}] ${m.text()}\n`));
  page.on('pageerror', (e) => consoleLog.write(`[pageerror] ${e.message}\n`));

  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(config.extensionDir)],
    ['extensionTestsPath', remote(config.suitePath)],
  ];
  const url = `${base}/?folder=${encodeURIComponent(config.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  say('opening the workbench');
  const closed = new Promise((r) => page.once('close', () => r({ closed: true })));
  await page.goto(url);

  const timeout = sleep(config.timeoutMs ?? 600000).then(() => ({ timedOut: true }));
  const outcome = await Promise.race([done, closed, timeout]);
  if (outcome.closed) {
    // The page closes when the suite's run() returns; its report normally comes first.
    results = await Promise.race([done, sleep(5000).then(() => undefined)]);
    if (!results) throw new Error('the workbench closed without the suite reporting results');
  } else if (outcome.timedOut) {
    await ops.screenshot({ name: 'timeout' }).catch(() => {});
    throw new Error(`the suite did not finish within ${config.timeoutMs} ms`);
  } else {
    results = outcome;
  }
  // Each journey leaves its screenshot for a reviewer; one that did not has not finished.
  for (const t of results.tests) {
    if (t.ok && t.screenshot && !existsSync(join(config.artifactsDir, `${t.screenshot}.png`))) {
      t.ok = false;
      t.error = `no screenshot ${t.screenshot}.png was saved`;
    }
  }
  const failed = results.tests.filter((t) => !t.ok);
  for (const t of results.tests) {
    say(`${t.ok ? 'PASS' : 'FAIL'} ${t.name} (${(t.ms / 1000).toFixed(1)} s)${t.ok ? '' : `\n${t.error}`}`);
  }
  console.log(`vscode e2e: ${results.tests.length - failed.length} passed, ${failed.length} failed`);
  exitCode = failed.length || !results.tests.length ? 1 : 0;
} catch (err) {
  console.error(`[driver] ${err?.stack ?? err}`);
  exitCode = 1;
} finally {
  writeFileSync(join(config.artifactsDir, 'results.json'), JSON.stringify(results ?? null, null, 2));
  await browser?.close().catch(() => {});
  await stopCodeServer();
  // VS Code's own logs (extension host, the Codex output channel) go with the artifacts.
  const logs = join(userData, 'logs');
  if (existsSync(logs)) cpSync(logs, join(config.artifactsDir, 'vscode-logs'), { recursive: true });
  rpc.close();
  suiteLog.end();
  say(`done, exit ${exitCode}`);
  process.exit(exitCode);
}
