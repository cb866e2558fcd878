import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { parseSip } from '../../server/video/sip';

/**
 * A gb28181 camera for tests, over UDP: it registers with the digest of its password, and answers the platform's
 * INVITE with 200 OK, then sends MPEG-PS over RTP to the port the SDP offered. The PS is ffmpeg's `testsrc` encoded
 * to H.264 (`-f mpeg`); the RTP packetising is the few lines below (12-byte header, sequence, timestamp, SSRC,
 * payloads of at most 1400 bytes), and every other pair of packets goes out swapped, so the platform must reorder.
 */

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

export interface GbCamera {
    /** REGISTER answered 200 OK (after the 401 challenge), or the final status line. */
    register(password: string): Promise<string>;
    /** The INVITEs received and the BYEs, as their start lines' methods. */
    calls: string[];
    /** The SDP of the last INVITE. */
    offer: () => string | undefined;
    /** Packets sent over RTP so far. */
    sent: () => number;
    /** Refuse the next INVITEs with this status (e.g. '488 Not Acceptable Here'), or answer them (undefined). */
    refuse(status: string | undefined): void;
    close(): Promise<void>;
}

export async function startGbCamera(gbId: string, sipPort: number): Promise<GbCamera> {
    const socket: Socket = createSocket('udp4');
    const inbox: string[] = [];
    const calls: string[] = [];
    let lastOffer: string | undefined;
    let sent = 0;
    let refusal: string | undefined;
    let feeder: ChildProcess | undefined;
    let cseq = 1;
    let closed = false;
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const port = socket.address().port;
    const send = (text: string) => !closed && socket.send(Buffer.from(text), sipPort, '127.0.0.1');

    function answer(text: string, status: string, extra: string[] = [], body = '') {
        const m = parseSip(text)!;
        const h = (n: string) => m.headers.get(n)?.[0] ?? '';
        const to = h('to');
        send(
            [
                `SIP/2.0 ${status}`,
                ...(m.headers.get('via') ?? []).map((v) => `Via: ${v}`),
                `From: ${h('from')}`,
                `To: ${/;tag=/.test(to) ? to : `${to};tag=cam`}`,
                `Call-ID: ${h('call-id')}`,
                `CSeq: ${h('cseq')}`,
                ...extra,
                `Content-Length: ${Buffer.byteLength(body)}`,
                '',
                body,
            ].join('\r\n'),
        );
    }

    function stopFeeding() {
        feeder?.kill('SIGKILL');
        feeder = undefined;
    }

    /** ffmpeg's PS, cut into RTP packets and sent to `to` (every other pair swapped). */
    function feed(to: { address: string; port: number }, ssrc: number) {
        stopFeeding();
        const child = spawn(
            'ffmpeg',
            [
                ...['-hide_banner', '-loglevel', 'error', '-re', '-f', 'lavfi'],
                ...['-i', 'testsrc=size=320x240:rate=15', '-pix_fmt', 'yuv420p', '-c:v', 'libx264'],
                ...['-preset', 'ultrafast', '-tune', 'zerolatency', '-g', '15', '-f', 'mpeg', 'pipe:1'],
            ],
            { stdio: ['ignore', 'pipe', 'ignore'] },
        );
        feeder = child;
        const started = Date.now();
        let sequence = 1000;
        child.stdout!.on('data', (ps: Buffer) => {
            const timestamp = ((Date.now() - started) * 90) >>> 0;
            const packets: Buffer[] = [];
            for (let off = 0; off < ps.length; off += 1400) {
                const head = Buffer.alloc(12);
                head[0] = 0x80; // version 2
                head[1] = 96 | (off + 1400 >= ps.length ? 0x80 : 0); // PS, marker on the last
                head.writeUInt16BE(sequence, 2);
                head.writeUInt32BE(timestamp, 4);
                head.writeUInt32BE(ssrc, 8);
                sequence = (sequence + 1) & 0xffff;
                packets.push(Buffer.concat([head, ps.subarray(off, off + 1400)]));
            }
            for (let i = 0; i + 1 < packets.length; i += 4) [packets[i], packets[i + 1]] = [packets[i + 1], packets[i]];
            if (closed) return;
            for (const p of packets) socket.send(p, to.port, to.address);
            sent += packets.length;
        });
    }

    socket.on('message', (buf) => {
        const text = buf.toString();
        inbox.push(text);
        const method = text.split(' ')[0];
        if (method === 'INVITE') {
            calls.push('INVITE');
            const sdp = parseSip(text)!.body;
            lastOffer = sdp;
            if (refusal) return answer(text, refusal);
            answer(text, '100 Trying');
            const address = /c=IN IP4 (\S+)/.exec(sdp)![1];
            const rtpPort = Number(/m=video (\d+)/.exec(sdp)![1]);
            const ssrc = /y=(\d+)/.exec(sdp)![1];
            const reply = ['v=0', `o=${gbId} 0 0 IN IP4 127.0.0.1`, 's=Play', 'c=IN IP4 127.0.0.1', 't=0 0'];
            reply.push(`m=video ${port} RTP/AVP 96`, 'a=sendonly', 'a=rtpmap:96 PS/90000', `y=${ssrc}`, '');
            answer(
                text,
                '200 OK',
                [`Contact: <sip:${gbId}@127.0.0.1:${port}>`, 'Content-Type: APPLICATION/SDP'],
                reply.join('\r\n'),
            );
            feed({ address, port: rtpPort }, Number(ssrc));
        } else if (method === 'BYE') {
            calls.push('BYE');
            stopFeeding();
            answer(text, '200 OK');
        } else if (method === 'MESSAGE') answer(text, '200 OK');
    });

    async function exchange(text: string): Promise<string> {
        const start = inbox.length;
        send(text);
        for (let i = 0; i < 250; i++) {
            const found = inbox.slice(start).find((m) => m.startsWith('SIP/2.0'));
            if (found) return found;
            await new Promise((r) => setTimeout(r, 20));
        }
        throw new Error(`no answer to ${text.split('\r\n')[0]}`);
    }

    function request(extra: string[]) {
        return [
            'REGISTER sip:34020000002000000001@3402000000 SIP/2.0',
            `Via: SIP/2.0/UDP 127.0.0.1:${port};rport;branch=z9hG4bK${cseq}`,
            `From: <sip:${gbId}@3402000000>;tag=cam${cseq}`,
            `To: <sip:${gbId}@3402000000>`,
            `Call-ID: register-${cseq}`,
            `CSeq: ${cseq++} REGISTER`,
            'Max-Forwards: 70',
            'Expires: 3600',
            ...extra,
            'Content-Length: 0',
            '',
            '',
        ].join('\r\n');
    }

    return {
        async register(password) {
            const challenge = parseSip(await exchange(request([])))!;
            const auth = challenge.headers.get('www-authenticate')?.[0];
            if (!auth) return challenge.start;
            const nonce = /nonce="([^"]+)"/.exec(auth)![1];
            const realm = /realm="([^"]+)"/.exec(auth)![1];
            const uri = 'sip:34020000002000000001@3402000000';
            const response = md5(`${md5(`${gbId}:${realm}:${password}`)}:${nonce}:${md5(`REGISTER:${uri}`)}`);
            const header = `Authorization: Digest username="${gbId}", realm="${realm}", nonce="${nonce}", uri="${uri}", response="${response}", algorithm=MD5`;
            return parseSip(await exchange(request([header])))!.start;
        },
        calls,
        offer: () => lastOffer,
        sent: () => sent,
        refuse(status) {
            refusal = status;
        },
        async close() {
            closed = true;
            stopFeeding();
            await new Promise<void>((resolve) => socket.close(() => resolve()));
        },
    };
}
