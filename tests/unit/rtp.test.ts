import { describe, expect, it } from 'vitest';
import { createJitterBuffer, parseRtp, psVideoCodec } from '../../server/video/rtp';

/** RTP depacketising for gb28181 video: header parsing, sequence order, gaps given up, the PS map's codec. */

function packet(sequence: number, payload: Buffer, opts: { csrc?: number; padding?: number; pt?: number } = {}) {
    const head = Buffer.alloc(12 + (opts.csrc ?? 0) * 4);
    head[0] = 0x80 | (opts.padding ? 0x20 : 0) | (opts.csrc ?? 0);
    head[1] = opts.pt ?? 96;
    head.writeUInt16BE(sequence & 0xffff, 2);
    head.writeUInt32BE(90_000, 4);
    head.writeUInt32BE(12345, 8);
    const pad = opts.padding ? Buffer.from([...Array(opts.padding - 1).fill(0), opts.padding]) : Buffer.alloc(0);
    return Buffer.concat([head, payload, pad]);
}

describe('RTP', () => {
    it('reads the header, skipping CSRCs and padding', () => {
        const p = parseRtp(packet(7, Buffer.from('abc'), { csrc: 2, padding: 4 }))!;
        expect(p).toMatchObject({ sequence: 7, timestamp: 90_000, ssrc: 12345, payloadType: 96 });
        expect(p.payload.toString()).toBe('abc');
        expect(parseRtp(Buffer.from('not rtp at all'))).toBeUndefined();
    });

    it('puts reordered packets back in sequence order, across the 16-bit wrap', () => {
        const out: string[] = [];
        const jitter = createJitterBuffer({ startDepth: 2, onPayload: (b) => out.push(b.toString()) });
        const seqs = [65534, 65533, 65535, 1, 0, 2, 3];
        for (const s of seqs) jitter.push(packet(s, Buffer.from(String(s))));
        expect(out).toEqual(['65533', '65534', '65535', '0', '1', '2', '3']);
        jitter.push(packet(1, Buffer.from('late')));
        jitter.push(packet(4, Buffer.from('x'), { pt: 8 }));
        expect(out.length).toBe(7);
        expect(jitter.stats()).toMatchObject({ late: 1, held: 0 });
    });

    it('gives a lost packet up once the buffer is full, and plays on', () => {
        const out: number[] = [];
        const jitter = createJitterBuffer({
            depth: 4,
            startDepth: 1,
            onPayload: (b) => out.push(Number(b.toString())),
        });
        for (const s of [10, 12, 13, 14, 15]) jitter.push(packet(s, Buffer.from(String(s))));
        expect(out).toEqual([10]);
        jitter.push(packet(16, Buffer.from('16')));
        expect(out).toEqual([10, 12, 13, 14, 15, 16]);
        expect(jitter.stats().lost).toBe(1);
    });

    it('names the video codec of a program stream map', () => {
        // pack header omitted: PSM (00 00 01 BC), length, flags, info length 0, map length 4, H.264 (0x1b) on 0xE0
        const psm = Buffer.from([0, 0, 1, 0xbc, 0, 14, 0xe0, 0xff, 0, 0, 0, 4, 0x1b, 0xe0, 0, 0, 0, 0, 0, 0]);
        expect(psVideoCodec(Buffer.concat([Buffer.from([1, 2, 3]), psm]))).toBe('h264');
        const hevc = Buffer.from(psm);
        hevc[12] = 0x24;
        expect(psVideoCodec(hevc)).toBe('hevc');
        expect(psVideoCodec(Buffer.from([0, 0, 1, 0xba, 0x44]))).toBeUndefined();
    });
});
