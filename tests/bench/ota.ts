import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { get, Agent } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import path from 'node:path';
import { alibabaCredentials } from '../../server/mqtt/signIn';
import { compiled } from './compiled';
import { connectPacket, packetReader, qos1Publisher, subscribePacket } from './mqtt/packets';
import type { BenchGroup, Figure } from './run';
import { lineAsker, lineReader } from './lineReader';

/**
 * `npm run bench -- ota` (docs/ota.md): the platform in a process of its own (ota/platformProcess.ts: PGlite in a
 * data directory, the whole app and broker, bundled as `npm start` runs it) and OTA_BENCH_DEVICES devices (default
 * 10,000) connected as bare MQTT sockets from this process, signed in with Alibaba's scheme:
 * - pushes/s: one batch over the product, from its creation until every device received its push on
 *   /ota/device/upgrade (the scheduler pushes online devices in slices of 500 per run);
 * - progress reports stored/s: every device reports step 50 at once; until the batch counts them all 升级中;
 *   then informs the target version: until all 成功 (informs/s);
 * - the batch page at that many rows: its two calls as the console makes them (detail, devices page 1 of 20) p50/p95,
 *   and the devices' last page;
 * - 100 concurrent downloads of a 20 MB package through its signed URL beside a bare node:http server of the same
 *   process streaming the same file (MB/s each, and the ratio);
 * - the platform's RSS before the devices, the highest during, and after.
 * The machine is shared: print `uptime` beside the figures.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEVICES = Number(process.env.OTA_BENCH_DEVICES ?? 10_000);
const DOWNLOADS = 100;
const PACKAGE_MB = 20;
const SAMPLES = 200;

type Dev = [string, string, string];

const T0 = performance.now();
/** Progress on stderr (the figures go to stdout): a long run says where it is. */
const step = (what: string) => process.stderr.write(`ota: ${((performance.now() - T0) / 1000).toFixed(1)} s ${what}\n`);

interface Device {
    socket: Socket;
    progress: (id: number, payload: string) => Buffer;
    inform: (id: number, payload: string) => Buffer;
    pushedAt?: number;
    version?: string;
}

/** A device: CONNECT, SUBSCRIBE to its upgrade topic (SUBACK awaited); pushes are acknowledged and timed. */
function openDevice(port: number, [productKey, deviceName, secret]: Dev, onPush: (d: Device, body: string) => void) {
    return new Promise<Device | undefined>((resolve) => {
        const creds = alibabaCredentials({ productKey, deviceName, secret });
        const socket = netConnect({ port, host: '127.0.0.1', noDelay: true }, () =>
            socket.write(connectPacket(creds.clientId, creds.username, creds.password, 300)),
        );
        const device: Device = {
            socket,
            progress: qos1Publisher(`/ota/device/progress/${productKey}/${deviceName}`),
            inform: qos1Publisher(`/ota/device/inform/${productKey}/${deviceName}`),
        };
        socket.on(
            'data',
            packetReader((type, p, body) => {
                if (type === 2) {
                    if (p[body + 1] !== 0) return socket.destroy();
                    socket.write(subscribePacket(`/ota/device/upgrade/${productKey}/${deviceName}`, 1));
                } else if (type === 9) resolve(device);
                else if (type === 3) {
                    const qos = (p[0] >> 1) & 3;
                    const topicLength = p.readUInt16BE(body);
                    let at = body + 2 + topicLength;
                    if (qos > 0) {
                        socket.write(Buffer.from([0x40, 2, p[at], p[at + 1]]));
                        at += 2;
                    }
                    onPush(device, p.subarray(at).toString('utf8'));
                }
            }),
        );
        socket.once('error', () => undefined);
        socket.once('close', () => resolve(undefined));
    });
}

const pct = (sorted: number[], p: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] * 10) / 10;

/** MB/s of `n` concurrent GETs of `url`, each read to its end (a fresh connection each). */
function downloads(url: string, n: number, size: number) {
    const agent = new Agent({ keepAlive: false, maxSockets: n });
    const t0 = performance.now();
    return Promise.all(
        Array.from(
            { length: n },
            () =>
                new Promise<number>((resolve, reject) => {
                    get(url, { agent }, (res) => {
                        let bytes = 0;
                        res.on('data', (c: Buffer) => (bytes += c.length));
                        res.on('end', () =>
                            res.statusCode === 200 ? resolve(bytes) : reject(new Error(`${res.statusCode}`)),
                        );
                        res.on('error', reject);
                    }).on('error', reject);
                }),
        ),
    ).then((sizes) => {
        const ms = performance.now() - t0;
        if (sizes.some((s) => s !== size))
            throw new Error(`a download was cut: ${sizes.find((s) => s !== size)} bytes`);
        return Math.round(((n * size) / 1048576 / (ms / 1000)) * 10) / 10;
    });
}

/** Polls `check` until true; every 5 s says what it waits for (`state()`: where it stands). */
async function until(check: () => Promise<boolean>, timeoutMs: number, what: string, state?: () => string) {
    const t = performance.now();
    let said = t;
    while (!(await check())) {
        const now = performance.now();
        if (now - t > timeoutMs)
            throw new Error(`${what}: not within ${timeoutMs / 1000} s${state ? ` (${state()})` : ''}`);
        if (now - said > 5000) {
            said = now;
            step(`still awaiting ${what}${state ? `: ${state()}` : ''}`);
        }
        await new Promise((r) => setTimeout(r, 50));
    }
}

const group: BenchGroup = {
    name: 'ota',
    async run() {
        const child = spawn(process.execPath, [await compiled('tests/bench/ota/platformProcess.ts')], {
            cwd: ROOT,
            // PGlite in a data directory of its own unless OTA_BENCH_DATABASE_URL names an empty PostgreSQL database.
            env: {
                ...process.env,
                DATABASE_URL: process.env.OTA_BENCH_DATABASE_URL ?? '',
                DEVICES: String(DEVICES),
            },
            stdio: ['pipe', 'pipe', 'inherit'],
        });
        step(
            `platform starting (${DEVICES} devices to seed, ${process.env.OTA_BENCH_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`,
        );
        const next = lineReader(child, 'platform');
        const ready = JSON.parse(await next()) as {
            port: number;
            mqttPort: number;
            token: string;
            dataDir: string;
            devices: Dev[];
            productId: number;
        };
        step(`platform ready: HTTP ${ready.port}, MQTT ${ready.mqttPort}`);
        // One question at a time: the platform answers `package` (async) after a later `stats` (lineAsker).
        const ask = lineAsker(child, next);
        const rss = async () => Math.round((await ask<{ rss: number }>('stats')).rss / 1048576);
        let peak = 0;
        const sampler = setInterval(() => void rss().then((r) => (peak = Math.max(peak, r))), 500);
        const base = `http://127.0.0.1:${ready.port}`;
        const api = async <T>(method: string, p: string, body?: unknown) => {
            const res = await fetch(base + p, {
                method,
                headers: {
                    authorization: ready.token,
                    ...(body instanceof Uint8Array
                        ? { 'content-type': 'application/octet-stream' }
                        : body
                          ? { 'content-type': 'application/json' }
                          : {}),
                },
                body:
                    body instanceof Uint8Array
                        ? (body as Uint8Array<ArrayBuffer>)
                        : body
                          ? JSON.stringify(body)
                          : undefined,
            });
            const json = (await res.json()) as { code: number; msg: string; data: T };
            if (json.code !== 200) throw new Error(`${method} ${p}: ${json.code} ${json.msg}`);
            return json.data;
        };
        const sockets: Device[] = [];
        try {
            // Stats answers print after the ready line: the first one is the platform before any device.
            const rssBefore = await rss();
            step(`RSS before devices: ${rssBefore} MB; connecting ${ready.devices.length} devices`);
            const productId = ready.productId;

            // Devices: connected 200 at a time, each subscribed, informing 1.0.0.
            const tConnect = performance.now();
            let nextDevice = 0;
            let pushes = 0;
            let lastPush = 0;
            const onPush = (d: Device, body: string) => {
                const push = JSON.parse(body) as { data: { version: string } };
                d.pushedAt = performance.now();
                d.version = push.data.version;
                pushes++;
                lastPush = d.pushedAt;
            };
            await Promise.all(
                Array.from({ length: 200 }, async () => {
                    while (nextDevice < ready.devices.length) {
                        const d = await openDevice(ready.mqttPort, ready.devices[nextDevice++], onPush);
                        if (!d) throw new Error('a bench device did not connect');
                        sockets.push(d);
                        d.socket.write(d.inform(1, '{"id":"1","params":{"version":"1.0.0"}}'));
                    }
                }),
            );
            const connectMs = performance.now() - tConnect;
            step(`${sockets.length} devices connected in ${(connectMs / 1000).toFixed(1)} s`);

            // A small package for the batch; the 20 MB one for downloads.
            const upload = (name: string, version: string, bytes: Uint8Array) =>
                api<{ id: number }>(
                    'POST',
                    `/api/ota/package/upload?${new URLSearchParams({ name, productId: String(productId), version, signMethod: 'SHA256', fileName: 'fw.bin' })}`,
                    bytes,
                );
            const small = await upload('压测固件', '2.0.0', randomBytes(64 * 1024));
            step(`package ${small.id} uploaded; creating the batch`);

            // Pushes: the batch over the product until every device has its push.
            const tBatch = performance.now();
            const batch = await api<{ id: number; devices: number }>('POST', '/api/ota/batch', {
                packageId: small.id,
                scope: 'product',
            });
            step(`batch ${batch.id} over ${batch.devices} devices; awaiting the pushes`);
            await until(
                async () => pushes >= sockets.length,
                600_000,
                'pushes',
                () => `${pushes} received`,
            );
            const pushesPerSecond = Math.round(sockets.length / ((lastPush - tBatch) / 1000));

            let lastCounts: Record<string, number> = {};
            const counts = async () =>
                (lastCounts = (
                    await api<{ counts: Record<string, number> }>('GET', `/api/ota/batch/detail?id=${batch.id}`)
                ).counts);
            const said = () => JSON.stringify(lastCounts);
            // Progress: every device reports step 50; until all 升级中.
            step(`${pushes} pushes received; every device reports step 50`);
            const tProgress = performance.now();
            // ASCII on the wire: qos1Publisher writes the payload as latin1, so "下载中" itself would arrive as control
            // bytes, JSON.parse would refuse it and the platform would log the report as malformed and store nothing
            // (why the bench used to wait forever here). JSON's \u escapes carry the same Chinese text.
            const report = '{"id":"2","params":{"step":"50","desc":"\\u4e0b\\u8f7d\\u4e2d"}}';
            for (const d of sockets) d.socket.write(d.progress(2, report));
            await until(async () => (await counts()).upgrading >= sockets.length, 600_000, 'progress', said);
            const progressPerSecond = Math.round(sockets.length / ((performance.now() - tProgress) / 1000));
            // The inform of the target: until all 成功.
            step('all 升级中; every device informs 2.0.0');
            const tInform = performance.now();
            for (const d of sockets) d.socket.write(d.inform(3, '{"id":"3","params":{"version":"2.0.0"}}'));
            await until(async () => (await counts()).succeeded >= sockets.length, 600_000, 'informs', said);
            const informsPerSecond = Math.round(sockets.length / ((performance.now() - tInform) / 1000));

            // The batch page at this many rows, as the console asks it.
            const time = async (f: () => Promise<unknown>) => {
                for (let i = 0; i < 10; i++) await f();
                const times: number[] = [];
                for (let i = 0; i < SAMPLES; i++) {
                    const t = performance.now();
                    await f();
                    times.push(performance.now() - t);
                }
                return times.sort((a, b) => a - b);
            };
            step('all 成功; timing the batch page');
            const page = await time(() =>
                Promise.all([
                    api('GET', `/api/ota/batch/detail?id=${batch.id}`),
                    api('GET', `/api/ota/batch/devices?batchId=${batch.id}&pageNumber=1&pageSize=20`),
                ]),
            );
            const lastPage = await time(() =>
                api(
                    'GET',
                    `/api/ota/batch/devices?batchId=${batch.id}&pageNumber=${Math.ceil(batch.devices / 20)}&pageSize=20`,
                ),
            );

            // Downloads: 20 MB, 100 at once, bare node:http first then the platform, twice each.
            step('uploading the 20 MB package');
            const big = await upload('压测大固件', '3.0.0', randomBytes(PACKAGE_MB * 1048576));
            const { url } = await ask<{ url: string }>(`package ${big.id}`);
            const bareUrl = `http://127.0.0.1:${(ready as unknown as { barePort: number }).barePort}/`;
            const size = PACKAGE_MB * 1048576;
            const rssBeforeDownloads = await rss();
            const bare: number[] = [];
            const platform: number[] = [];
            for (let i = 0; i < 2; i++) {
                bare.push(await downloads(bareUrl, DOWNLOADS, size));
                platform.push(await downloads(url, DOWNLOADS, size));
                step(`downloads round ${i + 1}: bare ${bare[i]} MB/s, platform ${platform[i]} MB/s`);
            }
            const rssAfterDownloads = await rss();
            const mean = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10;

            clearInterval(sampler);
            for (const d of sockets) d.socket.destroy();
            await new Promise((r) => setTimeout(r, 3000));
            const rssAfter = await rss();
            const figures: Figure[] = [
                { name: 'devices_connected', value: sockets.length, unit: 'devices' },
                { name: 'connect_seconds', value: Math.round(connectMs / 100) / 10, unit: 's' },
                { name: 'batch_devices', value: batch.devices, unit: 'rows' },
                { name: 'pushes_per_second', value: pushesPerSecond, unit: 'push/s' },
                { name: 'progress_stored_per_second', value: progressPerSecond, unit: 'report/s' },
                { name: 'informs_succeeded_per_second', value: informsPerSecond, unit: 'inform/s' },
                { name: 'batch_page_p50', value: pct(page, 50), unit: 'ms' },
                { name: 'batch_page_p95', value: pct(page, 95), unit: 'ms' },
                { name: 'batch_devices_last_page_p95', value: pct(lastPage, 95), unit: 'ms' },
                { name: 'download_100x20MB_bare_node_http', value: mean(bare), unit: 'MB/s' },
                { name: 'download_100x20MB_platform', value: mean(platform), unit: 'MB/s' },
                {
                    name: 'download_platform_share_of_bare',
                    value: Math.round((mean(platform) / mean(bare)) * 100),
                    unit: '%',
                },
                { name: 'rss_before', value: rssBefore, unit: 'MB' },
                { name: 'rss_peak_during', value: peak, unit: 'MB' },
                { name: 'rss_before_downloads', value: rssBeforeDownloads, unit: 'MB' },
                { name: 'rss_after_400_downloads', value: rssAfterDownloads, unit: 'MB' },
                { name: 'rss_after', value: rssAfter, unit: 'MB' },
            ];
            // Each figure beside its anchor (issue 27), on stderr: the figures themselves print as every group's do.
            const share = Math.round((mean(platform) / mean(bare)) * 100);
            const load = (await import('node:os')).loadavg().map((l) => l.toFixed(2));
            step(`anchors at ${sockets.length} connected devices (load average ${load.join(' ')}):`);
            step(`  batch page p95 ${pct(page, 95)} ms — goal <= 50 ms at 10,000 rows (${batch.devices} here)`);
            step(
                `  platform download ${mean(platform)} MB/s = ${share}% of bare node:http ${mean(bare)} MB/s — goal >= 80%`,
            );
            step(
                `  RSS ${rssBefore} MB before, ${peak} MB peak, ${rssAfter} MB after the devices left; ` +
                    `${rssBeforeDownloads} → ${rssAfterDownloads} MB over 400 downloads of 20 MB — goal: flat`,
            );
            return figures;
        } finally {
            clearInterval(sampler);
            for (const d of sockets) d.socket.destroy();
            child.kill('SIGKILL');
            await new Promise((r) => child.once('exit', r));
            for (const p of [ready.dataDir]) rmSync(p, { recursive: true, force: true });
        }
    },
};

export default group;
