import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A camera for tests: an RTSP server on an ephemeral port serving a generated test picture (ffmpeg's testsrc with a
 * running clock, H.264 baseline, 15 fps, a keyframe every second). ffmpeg encodes and sends RTP over UDP to this
 * process; the server answers OPTIONS / DESCRIBE / SETUP / PLAY / TEARDOWN and relays the RTP packets to each
 * playing client interleaved on its TCP connection (RFC 2326 §10.12), the transport the platform's relay asks for.
 * With `username`/`password` it demands Basic authentication like a camera. `drop()` cuts every client and refuses
 * new ones until `resume()`: a source that goes away and comes back.
 */
export interface RtspSource {
    url: string;
    port: number;
    /** RTSP requests seen, in order ("DESCRIBE", "PLAY", ...). */
    requests: string[];
    /** Clients currently playing. */
    playing(): number;
    drop(): void;
    resume(): void;
    close(): Promise<void>;
}

export async function startRtspSource(
    opts: { username?: string; password?: string; codec?: 'h264' | 'mpeg4'; path?: string } = {},
): Promise<RtspSource> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'rtsp-src-'));
    const sdpFile = path.join(dir, 'stream.sdp');
    const udp: UdpSocket = createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const rtpPort = udp.address().port;

    const encoder =
        opts.codec === 'mpeg4'
            ? ['-c:v', 'mpeg4', '-g', '15', '-q:v', '5']
            : [
                  '-c:v',
                  'libx264',
                  '-preset',
                  'ultrafast',
                  '-tune',
                  'zerolatency',
                  '-profile:v',
                  'baseline',
                  '-pix_fmt',
                  'yuv420p',
                  '-g',
                  '15',
                  '-x264-params',
                  'repeat-headers=1',
              ];
    const ffmpeg: ChildProcess = spawn(
        'ffmpeg',
        [
            '-hide_banner',
            '-nostdin',
            '-loglevel',
            'error',
            '-re',
            '-f',
            'lavfi',
            '-i',
            'testsrc=size=320x240:rate=15',
            ...encoder,
            '-flags',
            '+global_header',
            '-f',
            'rtp',
            '-payload_type',
            '96',
            '-sdp_file',
            sdpFile,
            `rtp://127.0.0.1:${rtpPort}?rtcpport=${rtpPort}&pkt_size=1200`,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let ffmpegErr = '';
    ffmpeg.stderr!.on('data', (d: Buffer) => (ffmpegErr += d.toString()));
    for (let i = 0; !existsSync(sdpFile) || readFileSync(sdpFile, 'utf8').length === 0; i++) {
        if (i > 100 || ffmpeg.exitCode !== null) throw new Error(`test source ffmpeg failed: ${ffmpegErr}`);
        await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 50));
    const sdp = readFileSync(sdpFile, 'utf8')
        .split(/\r?\n/)
        .filter((l) => l && !l.startsWith('c=') && !l.startsWith('a=tool'))
        .map((l) => (l.startsWith('m=video') ? l.replace(/^m=video \d+/, 'm=video 0') : l));
    const mIndex = sdp.findIndex((l) => l.startsWith('m='));
    sdp.splice(mIndex, 0, 'c=IN IP4 0.0.0.0');
    sdp.push('a=control:trackID=0');
    const sdpText = `${sdp.join('\r\n')}\r\n`;

    const players = new Set<Socket>();
    const sockets = new Set<Socket>();
    const requests: string[] = [];
    let refusing = false;

    udp.on('message', (packet) => {
        // RTCP (payload types 200-204) shares the port: only RTP goes to the players.
        if (packet.length < 12 || (packet[1] >= 200 && packet[1] <= 204)) return;
        const frame = Buffer.alloc(4 + packet.length);
        frame[0] = 0x24;
        frame[1] = 0;
        frame.writeUInt16BE(packet.length, 2);
        packet.copy(frame, 4);
        for (const s of players) if (!s.destroyed && s.writableLength < 4_000_000) s.write(frame);
    });

    const expected =
        opts.username !== undefined
            ? `Basic ${Buffer.from(`${opts.username}:${opts.password ?? ''}`).toString('base64')}`
            : undefined;

    const server: Server = createServer((socket) => {
        if (refusing) return socket.destroy();
        sockets.add(socket);
        socket.on('close', () => {
            sockets.delete(socket);
            players.delete(socket);
        });
        socket.on('error', () => undefined);
        let buffer = '';
        socket.on('data', (d) => {
            buffer += d.toString('latin1');
            for (;;) {
                const end = buffer.indexOf('\r\n\r\n');
                if (end < 0) return;
                const head = buffer.slice(0, end);
                buffer = buffer.slice(end + 4);
                const lines = head.split('\r\n');
                const [method, url] = lines[0].split(' ');
                const headers = new Map(
                    lines.slice(1).map((l) => {
                        const i = l.indexOf(':');
                        return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()] as const;
                    }),
                );
                const length = Number(headers.get('content-length') ?? 0);
                if (length) buffer = buffer.slice(length);
                requests.push(method);
                const cseq = headers.get('cseq') ?? '0';
                const reply = (status: string, extra: string[] = [], body = '') =>
                    socket.write(
                        [`RTSP/1.0 ${status}`, `CSeq: ${cseq}`, ...extra, `Content-Length: ${Buffer.byteLength(body)}`]
                            .join('\r\n')
                            .concat('\r\n\r\n', body),
                    );
                if (method !== 'OPTIONS' && expected && headers.get('authorization') !== expected) {
                    reply('401 Unauthorized', ['WWW-Authenticate: Basic realm="camera"']);
                    continue;
                }
                if (opts.path && method === 'DESCRIBE' && !new URL(url).pathname.startsWith(opts.path)) {
                    reply('404 Not Found');
                    continue;
                }
                switch (method) {
                    case 'OPTIONS':
                        reply('200 OK', ['Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN']);
                        break;
                    case 'DESCRIBE':
                        reply(
                            '200 OK',
                            ['Content-Type: application/sdp', `Content-Base: ${url.endsWith('/') ? url : `${url}/`}`],
                            sdpText,
                        );
                        break;
                    case 'SETUP':
                        if (!/interleaved/i.test(headers.get('transport') ?? '')) {
                            reply('461 Unsupported Transport');
                            break;
                        }
                        reply('200 OK', ['Transport: RTP/AVP/TCP;unicast;interleaved=0-1', 'Session: 12345678']);
                        break;
                    case 'PLAY':
                        reply('200 OK', ['Session: 12345678', 'Range: npt=0.000-']);
                        players.add(socket);
                        break;
                    case 'TEARDOWN':
                        reply('200 OK', ['Session: 12345678']);
                        players.delete(socket);
                        socket.end();
                        break;
                    default:
                        reply('405 Method Not Allowed');
                }
            }
        });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const auth =
        opts.username !== undefined
            ? `${encodeURIComponent(opts.username)}:${encodeURIComponent(opts.password ?? '')}@`
            : '';

    return {
        url: `rtsp://${auth}127.0.0.1:${port}${opts.path ?? '/live'}`,
        port,
        requests,
        playing: () => players.size,
        drop() {
            refusing = true;
            for (const s of sockets) s.destroy();
        },
        resume() {
            refusing = false;
        },
        async close() {
            refusing = true;
            for (const s of sockets) s.destroy();
            ffmpeg.kill('SIGKILL');
            await new Promise<void>((resolve) => server.close(() => resolve()));
            udp.close();
            rmSync(dir, { recursive: true, force: true });
        },
    };
}
