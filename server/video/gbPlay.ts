import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { SIP_DOMAIN, SIP_SERVER_ID } from '../domain/videoDevices';
import type { PipeSession } from './relay';
import { createJitterBuffer } from './rtp';

/**
 * Live video of a gb28181 camera (GB/T 28181 "实时视音频点播", as WVP-GB28181-pro asks for it): an INVITE whose SDP
 * offers a local RTP/UDP port for MPEG-PS (96 PS/90000) with the stream's SSRC (y=), ACK on the camera's 200 OK, the
 * camera's RTP depacketised in sequence order, BYE to end it. The SDP is written and read by hand: no SDP library is
 * installed, and the offer is ten fixed lines.
 */

export interface SipMessageLike {
    start: string;
    headers: Map<string, string[]>;
    body: string;
}

/** What the SIP endpoint lends a call: its socket, and the messages of one Call-ID routed to the call. */
export interface SipDialogs {
    address: string;
    port: number;
    send(text: string, to: { address: string; port: number }): void;
    follow(callId: string, handler: (m: SipMessageLike, from: { address: string; port: number }) => void): void;
    forget(callId: string): void;
    answer(m: SipMessageLike, to: { address: string; port: number }, status: string): void;
}

export interface PlayTarget {
    /** The channel asked for (a camera's own code plays its first video channel). */
    channelId: string;
    /** Where the camera registered from. */
    contact: { address: string; port: number };
}

export interface PlayOptions {
    /** The interface the RTP socket binds to (default 0.0.0.0). */
    rtpHost?: string;
    /** No final answer to the INVITE by then: refused (default 8 s). */
    inviteTimeoutMs?: number;
    /** No RTP for this long after the answer: the stream ended (default 10 s). */
    idleMs?: number;
}

const rand = () => randomBytes(6).toString('hex');
const first = (m: SipMessageLike, name: string) => m.headers.get(name)?.[0] ?? '';

export async function invite(sip: SipDialogs, target: PlayTarget, opts: PlayOptions = {}): Promise<PipeSession> {
    const rtp: Socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
        rtp.once('error', reject);
        rtp.bind(0, opts.rtpHost ?? '0.0.0.0', () => {
            rtp.off('error', reject);
            resolve();
        });
    });
    const rtpPort = rtp.address().port;
    // WVP's SSRC: 0 (live), the domain's 4th to 8th digits, a 4-digit number.
    const ssrc = `0${SIP_DOMAIN.slice(3, 8)}${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
    const { channelId, contact } = target;
    const sdp = [
        'v=0',
        `o=${channelId} 0 0 IN IP4 ${sip.address}`,
        's=Play',
        `c=IN IP4 ${sip.address}`,
        't=0 0',
        `m=video ${rtpPort} RTP/AVP 96`,
        'a=recvonly',
        'a=rtpmap:96 PS/90000',
        `y=${ssrc}`,
        '',
    ].join('\r\n');
    const callId = `${rand()}@${sip.address}`;
    const fromTag = rand();
    let requestUri = `sip:${channelId}@${contact.address}:${contact.port}`;
    let toHeader = `<sip:${channelId}@${SIP_DOMAIN}>`;
    const via = () => `Via: SIP/2.0/UDP ${sip.address}:${sip.port};rport;branch=z9hG4bK${rand()}`;
    const common = (cseq: string) => [
        `From: <sip:${SIP_SERVER_ID}@${SIP_DOMAIN}>;tag=${fromTag}`,
        `To: ${toHeader}`,
        `Call-ID: ${callId}`,
        `CSeq: ${cseq}`,
        `Contact: <sip:${SIP_SERVER_ID}@${sip.address}:${sip.port}>`,
        'Max-Forwards: 70',
        'User-Agent: IoT-Platform',
    ];
    const inviteText = [
        `INVITE ${requestUri} SIP/2.0`,
        via(),
        ...common('1 INVITE'),
        `Subject: ${channelId}:${ssrc},${SIP_SERVER_ID}:0`,
        'Content-Type: APPLICATION/SDP',
        `Content-Length: ${Buffer.byteLength(sdp)}`,
        '',
        sdp,
    ].join('\r\n');
    const inDialog = (method: string, cseq: string) =>
        `${[`${method} ${requestUri} SIP/2.0`, via(), ...common(cseq), 'Content-Length: 0'].join('\r\n')}\r\n\r\n`;

    let dataListener: (chunk: Buffer) => void = () => undefined;
    let endListener: (why: string) => void = () => undefined;
    let ended = false;
    let lastRtp = Date.now();
    const timers: { idle?: NodeJS.Timeout } = {};
    const jitter = createJitterBuffer({ onPayload: (payload) => dataListener(payload) });
    rtp.on('message', (packet) => {
        lastRtp = Date.now();
        jitter.push(packet);
    });

    function finish(why: string | null) {
        if (ended) return;
        ended = true;
        if (timers.idle) clearInterval(timers.idle);
        rtp.close();
        sip.forget(callId);
        if (why) endListener(why);
    }

    await new Promise<void>((resolve, reject) => {
        let retransmit: NodeJS.Timeout | undefined;
        let interval = 500;
        const giveUp = setTimeout(() => {
            if (retransmit) clearTimeout(retransmit);
            finish(null);
            reject(new Error('摄像机未应答点播请求（INVITE 超时）'));
        }, opts.inviteTimeoutMs ?? 8000);
        const again = () => {
            sip.send(inviteText, contact);
            retransmit = setTimeout(again, (interval = Math.min(interval * 2, 4000)));
        };
        sip.follow(callId, (m, from) => {
            if (!m.start.startsWith('SIP/2.0')) {
                // The camera hangs up (BYE) or asks something in the call: answered, and a BYE ends the stream.
                sip.answer(m, from, '200 OK');
                if (m.start.startsWith('BYE')) finish('摄像机结束了视频流（BYE）');
                return;
            }
            if (!/ INVITE$/i.test(first(m, 'cseq'))) return;
            const code = Number(m.start.split(' ')[1]);
            if (retransmit) clearTimeout(retransmit);
            retransmit = undefined;
            if (code < 200) return;
            clearTimeout(giveUp);
            toHeader = first(m, 'to') || toHeader;
            const remoteContact = /<([^>]+)>/.exec(first(m, 'contact'))?.[1];
            if (code < 300 && remoteContact) requestUri = remoteContact;
            sip.send(inDialog('ACK', '1 ACK'), contact);
            if (code >= 300) {
                finish(null);
                reject(new Error(`摄像机拒绝点播（${m.start.slice(8)}）`));
            } else resolve();
        });
        again();
    });

    lastRtp = Date.now();
    const idleMs = opts.idleMs ?? 10_000;
    timers.idle = setInterval(
        () => {
            if (Date.now() - lastRtp > idleMs)
                finish(`摄像机未发送视频流（${Math.round(idleMs / 1000)} 秒无 RTP 数据）`);
        },
        Math.min(1000, idleMs / 2),
    );
    return {
        onData: (listener) => (dataListener = listener),
        onEnd: (listener) => (endListener = listener),
        close() {
            if (ended) return;
            sip.send(inDialog('BYE', '2 BYE'), contact);
            finish(null);
        },
        stats: () => jitter.stats(),
    };
}
