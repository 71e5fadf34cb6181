/**
 * The authorization code flow in a real browser: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) signs in on the key manager's page with the keyboard, consents, is redirected to the
 * application's callback, and the application exchanges the code (PKCE S256) and calls an API through the
 * gateway with the token. On failure a screenshot of the page goes to .tap/browser/.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startSecured, basic, httpsPost } from '../helpers/secured.js';
import { recordingBackend } from '../helpers/recording-backend.js';
import { apiHeadToml } from '../helpers/home.js';
import { pkcePair } from '../helpers/authorize-client.js';

/** The flags this closed network needs (no update checks, no sync, no sandbox as root). */
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

async function callbackServer(t: Tap.Test): Promise<{ url: string; hits: URL[] }> {
  const hits: URL[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (u.pathname === '/cb') hits.push(u);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Signed in</title><h1>Back at the application</h1>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`, hits };
}

async function screenshotOnFailure(t: Tap.Test, page: Page, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    const dir = path.resolve('.tap/browser');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${t.name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 80)}-${Date.now()}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    t.comment(`screenshot of the failing page: ${file} (at ${page.url()})`);
    throw err;
  }
}

t.test('a browser signs in, consents, and the application calls an API through the gateway with the token', async (t) => {
  t.ok(fs.existsSync(CHROMIUM), `Chromium is installed at ${CHROMIUM} (.ci/run installs Debian's chromium)`);
  const backend = await recordingBackend(t);
  const app = await callbackServer(t);
  const api = `${apiHeadToml({ name: 'Menu', context: '/menu', production: backend.url })}[[resources]]
verb = "GET"
uri_template = "/*"
auth_type = "Application User"
`;
  const webApp = `name = "BrowserApp"
owner = "admin"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "browser-client"
client_secret = "browser-secret"
grant_types = ["authorization_code", "refresh_token"]
callback_url = "${app.url}"
[[subscriptions]]
api = "Menu:1.0.0"
throttling_policy = "Unlimited"
state = "UNBLOCKED"
`;
  const s = await startSecured(t, { conf: { server: { hostname: '127.0.0.1' } }, apis: { menu: api }, apps: { browser: webApp } });
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const { verifier, challenge } = pkcePair();
  const q = new URLSearchParams({ response_type: 'code', client_id: 'browser-client', redirect_uri: app.url, scope: 'openid', state: 'browser-state', nonce: 'browser-nonce', code_challenge: challenge, code_challenge_method: 'S256' });

  await screenshotOnFailure(t, page, async () => {
    await page.goto(s.kmUrl(`/oauth2/authorize?${q}`));
    t.equal(await page.title(), 'Sign in');
    t.equal(await page.evaluate(() => document.activeElement?.id), 'username', 'the user name field has the focus');
    // Keyboard only: type, Tab to the password, Enter submits.
    await page.keyboard.type('admin');
    await page.keyboard.press('Tab');
    await page.keyboard.type('wrong-password');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#password-error');
    t.equal(await page.getAttribute('#password', 'aria-invalid'), 'true', 'the error is tied to the field');
    t.match(await page.textContent('[role=alert]'), /incorrect/);
    await page.fill('#password', 'admin');
    await page.press('#password', 'Enter');
    await page.waitForSelector('text=Allow access?');
    t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Allow', 'Allow has the focus');
    await Promise.all([page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/cb\?/), page.keyboard.press('Enter')]);
  });
  t.equal(app.hits.length, 1, 'the application was called back once');
  const back = app.hits[0]!;
  t.equal(back.searchParams.get('state'), 'browser-state');
  const code = back.searchParams.get('code');
  t.ok(code, 'a code came back');

  const tok = await httpsPost(s.kmUrl('/oauth2/token'), { grant_type: 'authorization_code', code: code!, redirect_uri: app.url, code_verifier: verifier }, { authorization: basic('browser-client', 'browser-secret') });
  t.equal(tok.status, 200, tok.text);
  const body = tok.json as { access_token: string; id_token: string };
  t.type(body.id_token, 'string');
  const call = await s.call('/menu/1.0.0/today', body.access_token);
  t.equal(call.status, 200, call.text);
  t.equal(backend.seen.length, 1);
  t.equal(backend.seen[0]!.line, 'GET /today HTTP/1.1');
});
