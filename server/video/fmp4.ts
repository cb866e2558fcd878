/**
 * Fragmented MP4 as ffmpeg writes it to a pipe (`-f mp4 -movflags frag_keyframe+empty_moov+default_base_moof`), cut
 * into what a Media Source Extensions player appends: the init segment (ftyp + moov) once, then each fragment
 * (moof + mdat), saying whether the fragment starts with a keyframe (a viewer may start there). Other top-level boxes
 * (mfra at the end, free, styp) are passed over.
 */

/** A top-level box larger than this is not a live fragment: the stream is refused rather than held. */
export const MAX_BOX = 16 * 1024 * 1024;

export interface Fragment {
    bytes: Buffer;
    /** The fragment's first sample is a sync sample (a keyframe). */
    key: boolean;
}

export interface Fmp4Events {
    /** The init segment, with its MSE codec string when the track is H.264 with its parameters (else undefined). */
    onInit(init: Buffer, codec: string | undefined): void;
    onFragment(fragment: Fragment): void;
    onError(message: string): void;
}

/** The MSE codec string of an H.264 track (`avc1.PPCCLL` from its avcC box), or undefined. */
export function codecOf(moov: Buffer): string | undefined {
    const at = moov.indexOf('avcC');
    // The box (size before its type) holds at least version, profile, compatibility, level and two more bytes.
    if (at < 4 || at + 8 > moov.length || moov.readUInt32BE(at - 4) < 15 || moov[at + 4] !== 1) return undefined;
    const hex = (b: number) => b.toString(16).padStart(2, '0');
    return `avc1.${hex(moov[at + 5])}${hex(moov[at + 6])}${hex(moov[at + 7])}`;
}

/** Child boxes of a box body: [type, start of body, end]. */
export function* children(buf: Buffer, start: number, end: number): Generator<[string, number, number]> {
    let i = start;
    while (i + 8 <= end) {
        const size = buf.readUInt32BE(i);
        if (size < 8 || i + size > end) return;
        yield [buf.toString('latin1', i + 4, i + 8), i + 8, i + size];
        i += size;
    }
}

/**
 * Whether a moof's first sample is a sync sample: trun's first_sample_flags, else its first sample's flags, else
 * tfhd's default_sample_flags; without any, ffmpeg's frag_keyframe starts fragments at keyframes (key).
 */
export function startsWithKeyframe(moof: Buffer): boolean {
    for (const [type, s, e] of children(moof, 8, moof.length)) {
        if (type !== 'traf') continue;
        let defaultFlags: number | undefined;
        for (const [t, b, end] of children(moof, s, e)) {
            if (t === 'tfhd' && b + 8 <= end) {
                const flags = moof.readUInt32BE(b) & 0xffffff;
                let o = b + 8;
                for (const [bit, len] of [
                    [0x1, 8],
                    [0x2, 4],
                    [0x8, 4],
                    [0x10, 4],
                ])
                    if (flags & bit) o += len;
                if (flags & 0x20 && o + 4 <= end) defaultFlags = moof.readUInt32BE(o);
            }
            if (t === 'trun' && b + 8 <= end) {
                const flags = moof.readUInt32BE(b) & 0xffffff;
                let o = b + 8 + (flags & 0x1 ? 4 : 0);
                let sampleFlags: number | undefined;
                if (flags & 0x4) sampleFlags = moof.readUInt32BE(o);
                else if (flags & 0x400) {
                    o += (flags & 0x100 ? 4 : 0) + (flags & 0x200 ? 4 : 0);
                    if (o + 4 <= end) sampleFlags = moof.readUInt32BE(o);
                }
                sampleFlags ??= defaultFlags;
                return sampleFlags === undefined || (sampleFlags & 0x10000) === 0;
            }
        }
    }
    return true;
}

/** Feeds a byte stream in, calls out the init segment and the fragments as each completes. */
export function createFmp4Splitter(events: Fmp4Events) {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let head: Buffer[] = [];
    let moof: Buffer | undefined;
    let init = false;
    let failed = false;
    /** Bytes the box being waited for needs: no copying until they are all here. */
    let need = 8;

    function box(type: string, bytes: Buffer) {
        if (type === 'ftyp') head = [bytes];
        else if (type === 'moov') {
            const moov = Buffer.concat([...head, bytes]);
            head = [];
            init = true;
            events.onInit(moov, codecOf(bytes));
        } else if (type === 'moof') moof = bytes;
        else if (type === 'mdat' && moof && init) {
            events.onFragment({ bytes: Buffer.concat([moof, bytes]), key: startsWithKeyframe(moof) });
            moof = undefined;
        }
    }

    function fail(message: string) {
        failed = true;
        pending = [];
        events.onError(message);
    }

    return {
        push(chunk: Buffer) {
            if (failed) return;
            pending.push(chunk);
            pendingBytes += chunk.length;
            if (pendingBytes < need) return;
            need = 8;
            let buf = pending.length === 1 ? pending[0] : Buffer.concat(pending);
            let i = 0;
            while (buf.length - i >= 8) {
                let size = buf.readUInt32BE(i);
                let headerLen = 8;
                if (size === 1) {
                    if (buf.length - i < 16) break;
                    size = Number(buf.readBigUInt64BE(i + 8));
                    headerLen = 16;
                }
                if (size < headerLen || size > MAX_BOX) return fail(`视频流格式错误（盒子大小 ${size}）`);
                if (buf.length - i < size) {
                    need = size;
                    break;
                }
                box(buf.toString('latin1', i + 4, i + 8), buf.subarray(i, i + size));
                if (failed) return;
                i += size;
            }
            buf = buf.subarray(i);
            pending = buf.length ? [buf] : [];
            pendingBytes = buf.length;
        },
        /** Bytes held waiting for the rest of a box. */
        held: () => pendingBytes,
    };
}
