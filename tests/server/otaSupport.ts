import type { TestServer } from '../../server/testing';
import { call } from './support';

/** Deterministic firmware bytes of a size (no two sizes alike at the start). */
export function firmware(size: number, seed = 7): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(size);
    let x = (seed * 2654435761 + size) >>> 0;
    for (let i = 0; i < size; i++) {
        x = (x * 1103515245 + 12345) >>> 0;
        out[i] = x >>> 24;
    }
    return out;
}

/** 上传固件 as the console sends it: the file as the body, the fields in the query. */
export function uploadFirmware(
    s: TestServer,
    fields: Record<string, unknown>,
    fileName: string,
    body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null,
) {
    const query = new URLSearchParams({ fileName });
    for (const [k, v] of Object.entries(fields)) query.set(k, String(v));
    return call(s, 'POST', `/api/ota/package/upload?${query}`, {
        body,
        headers: { 'content-type': 'application/octet-stream' },
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
}
