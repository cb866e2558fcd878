import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { inject } from 'vitest';

/**
 * Chromium's headless shell (Debian's chromium-headless-shell, what Playwright itself runs headless) when installed:
 * the same Blink without the full browser's windowing, about a fifth less CPU per file here. Else the full browser.
 */
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
export const CHROMIUM =
    process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');
export const OUTPUT_DIR = path.resolve('tests/e2e/output');
export const ADMIN_PASSWORD = 'e2e-admin-Pass1';

/**
 * End-to-end tests may be skipped only when no Chromium exists, and never when E2E_REQUIRED is set (CI):
 * there a missing browser is a failure, not a skip.
 */
export const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.E2E_REQUIRED) {
    throw new Error(
        `E2E_REQUIRED is set but Chromium is missing at ${CHROMIUM}: apt-get install -y chromium-headless-shell fonts-noto-cjk`,
    );
}

export async function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const srv = createServer();
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => {
            const { port } = srv.address() as { port: number };
            srv.close(() => resolve(port));
        });
    });
}

export interface RunningServer {
    url: string;
    dataDir: string;
    output: () => string;
    stop: () => Promise<void>;
}

/**
 * The server of the e2e files: the one started by globalSetup.ts for the whole run (its stop() leaves it running),
 * so the files share one start, one console build and one seeded database. Files work on it as a person would on a
 * shared console: they create what they need under names of their own and read counts from the API, never assume
 * an untouched demo. `startServer(env)` with settings of its own starts a private server instead.
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
    const shared = Object.keys(env).length === 0 ? inject('e2eServer') : undefined;
    if (shared) return { ...shared, output: () => shared.output, stop: async () => undefined };
    return startPrivateServer(env);
}

/** Starts the real `npm start` (scripts/start.mjs: builds the console when stale, then the server) on free ports. */
export async function startPrivateServer(env: Record<string, string> = {}): Promise<RunningServer> {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'iot-e2e-'));
    let out = '';
    const child: ChildProcess = spawn(process.execPath, ['scripts/start.mjs'], {
        env: {
            ...process.env,
            PORT: String(port),
            HOST: '127.0.0.1',
            DATA_DIR: dataDir,
            ADMIN_PASSWORD,
            SEED_DEMO: '1',
            MQTT_PORT: '0',
            AMQP_PORT: '0',
            SIP_PORT: '0',
            // TLS listeners on free ports too (8443/8883/5671 may be another run's).
            HTTPS_PORT: '0',
            MQTTS_PORT: '0',
            AMQPS_PORT: '0',
            DATABASE_URL: '',
            ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
    });
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 220_000;
    for (;;) {
        if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${out}`);
        try {
            // Answering, and the start-up lines (the MQTT / AMQP ports tests read from output()) printed.
            const res = await fetch(`${url}/sso/login`);
            if (res.ok && out.includes('Ctrl+C')) break;
        } catch {
            // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`server did not start in time:\n${out}`);
        await new Promise((r) => setTimeout(r, 300));
    }
    return {
        url,
        dataDir,
        output: () => out,
        stop: async () => {
            if (child.exitCode === null && child.pid) {
                const exited = new Promise((r) => child.once('exit', r));
                process.kill(-child.pid, 'SIGTERM');
                await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
                if (child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
            }
            rmSync(dataDir, { recursive: true, force: true });
        },
    };
}

export async function launchBrowser(opts: { webgl?: boolean } = {}): Promise<Browser> {
    const args = [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
        '--disable-quic',
        ...(opts.webgl
            ? ['--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--ignore-gpu-blocklist']
            : ['--disable-gpu']),
    ];
    return chromium.launch({ executablePath: CHROMIUM, headless: true, args });
}

/** Signs in through the server's SSO page, as a person would, and waits for the console. */
export async function signIn(page: Page, url: string, target = '/introduce'): Promise<void> {
    await page.goto(`${url}${target}`);
    await page.waitForURL(/\/sso\/login/);
    await page.fill('input[name="username"]', 'admin');
    await page.fill('input[name="password"]', ADMIN_PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForURL((u) => !u.pathname.startsWith('/sso'));
}

/**
 * E2E_SCREENSHOTS=0 writes only failures' screenshots (`failed-…`): CI sets it, as a fresh clone's output is thrown
 * away, and the 140-odd full-page PNGs of a run cost Chromium about a quarter of a screen test's CPU.
 */
const SCREENSHOTS = process.env.E2E_SCREENSHOTS !== '0';

/**
 * Writes tests/e2e/output/NAME.png to be looked at (none under E2E_SCREENSHOTS=0 but failures'); returns its path.
 * `settleMs`: time for charts, maps and transitions to finish drawing first, spent only when the picture is taken.
 */
export async function screenshot(page: Page, name: string, opts: { settleMs?: number } = {}): Promise<string> {
    const file = path.join(OUTPUT_DIR, `${name}.png`);
    if (!SCREENSHOTS && !name.startsWith('failed-')) return file;
    if (opts.settleMs) await page.waitForTimeout(opts.settleMs);
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: file, fullPage: true });
    return file;
}

/**
 * The innermost visible element holding `text`. Playwright's getByText found no match for MUI helper texts in
 * Chromium 156 here (the same text matched through `hasText`), so the tests look text up this way.
 */
export function byText(scope: Page | ReturnType<Page['locator']>, text: string) {
    return scope
        .locator('p, span, div, td, th, li, a, button, label, h1, h2, h3, h4, h5, h6', { hasText: text })
        .last();
}

declare module 'vitest' {
    export interface ProvidedContext {
        /** The shared e2e server (globalSetup.ts); output is what it printed by the time it was ready. */
        e2eServer: { url: string; dataDir: string; output: string } | undefined;
    }
}
