import { createHash, randomBytes } from 'node:crypto';
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { and, eq, lt } from 'drizzle-orm';
import type { Db } from '../db/client';
import { devices, videoDevices } from '../db/schema';
import { SIP_DOMAIN, SIP_SERVER_ID, type GbChannel } from '../domain/videoDevices';
import { invite, type PlayOptions, type SipDialogs } from './gbPlay';
import type { PipeSource } from './relay';

/**
 * The GB/T 28181 SIP endpoint (UDP) for gb28181 cameras: REGISTER with digest authentication (RFC 2617, MD5) using
 * the camera's password, keep-alive MESSAGEs (CmdType Keepalive) that keep it online, and the catalog query sent after
 * each registration, whose answer (CmdType Catalog) becomes the camera's channels. A camera silent for
 * `keepaliveTimeoutMs` (default 3 × 60 s, the standard's keep-alive interval and count) goes offline, and so does one
 * that unregisters (Expires: 0). Bodies are read as UTF-8 (GB2312 cameras' Chinese names may show garbled).
 * `play` asks a registered camera for live video (INVITE, server/video/gbPlay.ts); the messages of such a call
 * (answers, the camera's BYE) go to the call by Call-ID.
 */

interface SipMessage {
    start: string;
    headers: Map<string, string[]>;
    body: string;
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const rand = () => randomBytes(8).toString('hex');

export function parseSip(text: string): SipMessage | undefined {
    const split = text.indexOf('\r\n\r\n');
    const head = split < 0 ? text : text.slice(0, split);
    const body = split < 0 ? '' : text.slice(split + 4);
    const lines = head.split('\r\n');
    if (!lines[0]) return undefined;
    const headers = new Map<string, string[]>();
    for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        if (i < 1) continue;
        const name = line.slice(0, i).trim().toLowerCase();
        headers.set(name, [...(headers.get(name) ?? []), line.slice(i + 1).trim()]);
    }
    return { start: lines[0], headers, body };
}

const header = (m: SipMessage, name: string) => m.headers.get(name)?.[0];
const userOf = (value: string | undefined) => /sip:([^@>;]+)@/.exec(value ?? '')?.[1];
const xmlValue = (xml: string, tag: string) => new RegExp(`<${tag}>([^<]*)</${tag}>`, 'i').exec(xml)?.[1]?.trim();

function digestParams(value: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const m of value.replace(/^Digest\s+/i, '').matchAll(/(\w+)=("([^"]*)"|[^,\s]*)/g))
        out[m[1].toLowerCase()] = m[3] ?? m[2];
    return out;
}

export interface SipServerOptions {
    db: Db;
    port: number;
    host?: string;
    /** The address cameras are told to register to (default: the bound host, or 127.0.0.1). */
    publicAddress?: string;
    now?: () => Date;
    keepaliveTimeoutMs?: number;
    log?: (line: string) => void;
    /** INVITE and RTP timings of live video. */
    play?: Omit<PlayOptions, 'rtpHost'>;
}

export const NOT_REGISTERED = '设备未注册上线，无法点播';
export const NO_CHANNEL = '通道不存在';

export async function createSipServer(opts: SipServerOptions) {
    const { db } = opts;
    const now = opts.now ?? (() => new Date());
    const log = opts.log ?? (() => undefined);
    const timeoutMs = opts.keepaliveTimeoutMs ?? 180_000;
    const socket: Socket = createSocket('udp4');
    const nonces = new Map<string, number>();
    const calls = new Map<string, (m: SipMessage, from: RemoteInfo) => void>();
    let sn = 1;

    await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind(opts.port, opts.host ?? '0.0.0.0', () => {
            socket.off('error', reject);
            resolve();
        });
    });
    const port = socket.address().port;
    const address = opts.publicAddress ?? (opts.host && opts.host !== '0.0.0.0' ? opts.host : '127.0.0.1');

    let closed = false;
    const send = (text: string, to: RemoteInfo | { address: string; port: number }) => {
        if (!closed) socket.send(Buffer.from(text), to.port, to.address);
    };

    function respond(m: SipMessage, to: { address: string; port: number }, status: string, extra: string[] = []) {
        const to_ = header(m, 'to') ?? '';
        const lines = [
            `SIP/2.0 ${status}`,
            ...(m.headers.get('via') ?? []).map((v) => `Via: ${v}`),
            `From: ${header(m, 'from') ?? ''}`,
            `To: ${/;tag=/.test(to_) ? to_ : `${to_};tag=${rand()}`}`,
            `Call-ID: ${header(m, 'call-id') ?? ''}`,
            `CSeq: ${header(m, 'cseq') ?? ''}`,
            'User-Agent: IoT-Platform',
            ...extra,
            'Content-Length: 0',
        ];
        send(`${lines.join('\r\n')}\r\n\r\n`, to);
    }

    async function camera(gbId: string) {
        const [row] = await db
            .select({ deviceId: videoDevices.deviceId, password: videoDevices.password, enabled: devices.enabled })
            .from(videoDevices)
            .innerJoin(devices, eq(devices.id, videoDevices.deviceId))
            .where(and(eq(videoDevices.gbId, gbId), eq(videoDevices.protocol, 'gb28181')));
        return row;
    }

    async function setOnline(deviceId: number, online: boolean, extra: Partial<typeof videoDevices.$inferInsert> = {}) {
        const t = now();
        await db.transaction(async (tx) => {
            await tx
                .update(devices)
                .set({ status: online ? 'ONLINE' : 'OFFLINE', statusTime: t, ...(online ? { lastTime: t } : {}) })
                .where(and(eq(devices.id, deviceId), eq(devices.enabled, true)));
            if (Object.keys(extra).length)
                await tx.update(videoDevices).set(extra).where(eq(videoDevices.deviceId, deviceId));
        });
    }

    function queryCatalog(gbId: string, to: { address: string; port: number }) {
        const body = `<?xml version="1.0" encoding="UTF-8"?>\r\n<Query>\r\n<CmdType>Catalog</CmdType>\r\n<SN>${sn++}</SN>\r\n<DeviceID>${gbId}</DeviceID>\r\n</Query>\r\n`;
        const lines = [
            `MESSAGE sip:${gbId}@${to.address}:${to.port} SIP/2.0`,
            `Via: SIP/2.0/UDP ${address}:${port};rport;branch=z9hG4bK${rand()}`,
            `From: <sip:${SIP_SERVER_ID}@${SIP_DOMAIN}>;tag=${rand()}`,
            `To: <sip:${gbId}@${SIP_DOMAIN}>`,
            `Call-ID: ${rand()}@${address}`,
            'CSeq: 1 MESSAGE',
            'Max-Forwards: 70',
            'Content-Type: Application/MANSCDP+xml',
            `Content-Length: ${Buffer.byteLength(body)}`,
        ];
        send(`${lines.join('\r\n')}\r\n\r\n${body}`, to);
    }

    async function register(m: SipMessage, from: RemoteInfo) {
        const gbId = userOf(header(m, 'from')) ?? userOf(header(m, 'to'));
        const cam = gbId ? await camera(gbId) : undefined;
        if (!gbId || !cam) return respond(m, from, '404 Not Found');
        if (!cam.enabled) return respond(m, from, '403 Forbidden');
        const auth = header(m, 'authorization');
        const challenge = () => {
            const nonce = rand() + rand();
            nonces.set(nonce, Date.now() + 5 * 60_000);
            respond(m, from, '401 Unauthorized', [
                `WWW-Authenticate: Digest realm="${SIP_DOMAIN}", nonce="${nonce}", algorithm=MD5`,
            ]);
        };
        if (!auth) return challenge();
        const p = digestParams(auth);
        const expiry = nonces.get(p.nonce ?? '');
        if (!expiry || expiry < Date.now()) return challenge();
        const ha1 = md5(`${p.username}:${p.realm}:${cam.password ?? ''}`);
        const ha2 = md5(`REGISTER:${p.uri}`);
        const expected =
            p.qop === 'auth'
                ? md5(`${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:auth:${ha2}`)
                : md5(`${ha1}:${p.nonce}:${ha2}`);
        if (p.username !== gbId || p.response !== expected) {
            log(`sip: REGISTER of ${gbId} refused (digest)`);
            return respond(m, from, '403 Forbidden');
        }
        nonces.delete(p.nonce);
        const expires = Number(header(m, 'expires') ?? 3600);
        if (expires === 0) {
            respond(m, from, '200 OK', ['Expires: 0']);
            await setOnline(cam.deviceId, false);
            return;
        }
        respond(m, from, '200 OK', [`Expires: ${expires}`, `Date: ${now().toISOString().slice(0, 23)}`]);
        await setOnline(cam.deviceId, true, {
            registerTime: now(),
            keepaliveTime: now(),
            sipContact: `${from.address}:${from.port}`,
        });
        queryCatalog(gbId, from);
    }

    async function message(m: SipMessage, from: RemoteInfo) {
        const gbId = xmlValue(m.body, 'DeviceID') ?? userOf(header(m, 'from'));
        const cmd = xmlValue(m.body, 'CmdType');
        const cam = gbId ? await camera(userOf(header(m, 'from')) ?? gbId) : undefined;
        if (!cam) return respond(m, from, '404 Not Found');
        respond(m, from, '200 OK');
        if (cmd === 'Keepalive') {
            await setOnline(cam.deviceId, true, { keepaliveTime: now(), sipContact: `${from.address}:${from.port}` });
        } else if (cmd === 'Catalog') {
            const channels: GbChannel[] = [...m.body.matchAll(/<Item>([\s\S]*?)<\/Item>/gi)].map((item) => ({
                channelId: xmlValue(item[1], 'DeviceID') ?? '',
                name: xmlValue(item[1], 'Name') ?? '',
                manufacturer: xmlValue(item[1], 'Manufacturer'),
                model: xmlValue(item[1], 'Model'),
                status: xmlValue(item[1], 'Status'),
            }));
            await db
                .update(videoDevices)
                .set({ channels: channels.filter((c) => c.channelId).slice(0, 1000) })
                .where(eq(videoDevices.deviceId, cam.deviceId));
        }
    }

    socket.on('message', (buf, from) => {
        const m = parseSip(buf.toString('utf8'));
        if (!m) return;
        const call = calls.get(header(m, 'call-id') ?? '');
        if (call) return call(m, from);
        if (m.start.startsWith('SIP/2.0')) return; // answers to our queries need nothing
        const method = m.start.split(' ')[0];
        const work =
            method === 'REGISTER'
                ? register(m, from)
                : method === 'MESSAGE'
                  ? message(m, from)
                  : Promise.resolve(respond(m, from, '405 Method Not Allowed'));
        work.catch((err) => log(`sip: ${method} failed: ${String(err)}`));
    });

    // Cameras that stopped keeping alive go offline.
    const sweeper = setInterval(
        () => {
            const before = new Date(now().getTime() - timeoutMs);
            void db
                .select({ id: videoDevices.deviceId })
                .from(videoDevices)
                .innerJoin(devices, eq(devices.id, videoDevices.deviceId))
                .where(
                    and(
                        eq(videoDevices.protocol, 'gb28181'),
                        eq(devices.status, 'ONLINE'),
                        lt(videoDevices.keepaliveTime, before),
                    ),
                )
                .then(async (rows) => {
                    for (const r of rows) await setOnline(Number(r.id), false);
                })
                .catch((err) => log(`sip: keep-alive sweep failed: ${String(err)}`));
        },
        Math.min(30_000, Math.max(200, timeoutMs / 3)),
    );
    sweeper.unref();

    const dialogs: SipDialogs = {
        address,
        port,
        send,
        follow: (callId, handler) => calls.set(callId, handler),
        forget: (callId) => calls.delete(callId),
        answer: (m, to, status) => respond(m, to, status),
    };

    /** Where a registered camera is, and the channel to play (the one asked for, else its first, else itself). */
    async function playTarget(deviceId: number, channelId?: string) {
        const [row] = await db
            .select({ gbId: videoDevices.gbId, contact: videoDevices.sipContact, channels: videoDevices.channels })
            .from(videoDevices)
            .innerJoin(devices, eq(devices.id, videoDevices.deviceId))
            .where(and(eq(videoDevices.deviceId, deviceId), eq(devices.status, 'ONLINE')));
        const [host, portText] = (row?.contact ?? '').split(/:(?=\d+$)/);
        if (!row?.gbId || !host || !portText) throw new Error(NOT_REGISTERED);
        const channels = (row.channels ?? []) as GbChannel[];
        if (channelId && !channels.some((c) => c.channelId === channelId)) throw new Error(NO_CHANNEL);
        return {
            channelId: channelId || channels[0]?.channelId || row.gbId,
            contact: { address: host, port: Number(portText) },
        };
    }

    return {
        port: () => port,
        address: () => address,
        /** Checks that the camera can be played now (registered; the channel one of its own): throws the reason. */
        playTarget,
        /** The live video of a camera as the relay's pipe source: each open is a new call. */
        play(deviceId: number, channelId?: string): PipeSource {
            return {
                key: `gb28181:${deviceId}:${channelId ?? ''}`,
                open: async () =>
                    invite(dialogs, await playTarget(deviceId, channelId), {
                        ...opts.play,
                        rtpHost: opts.host ?? '0.0.0.0',
                    }),
            };
        },
        async close() {
            clearInterval(sweeper);
            closed = true;
            await new Promise<void>((resolve) => socket.close(() => resolve()));
        },
    };
}

export type SipServer = Awaited<ReturnType<typeof createSipServer>>;
