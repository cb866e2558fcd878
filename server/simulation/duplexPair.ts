import { Duplex } from 'node:stream';

/**
 * Two connected in-memory streams: what one end writes, the other reads (node:stream's duplexPair arrives in Node
 * 22.6; this project runs on 20). Ending or destroying one end ends the other, as a closed socket would.
 */
export function duplexPair(): [Duplex, Duplex] {
    const ends: Duplex[] = [];
    const make = (peerIndex: number) =>
        new Duplex({
            read() {},
            write(chunk: Buffer, _encoding, callback) {
                const peer = ends[peerIndex];
                if (!peer.destroyed) peer.push(chunk);
                callback();
            },
            final(callback) {
                ends[peerIndex].push(null);
                callback();
            },
            destroy(err, callback) {
                const peer = ends[peerIndex];
                if (!peer.destroyed) {
                    peer.push(null);
                    setImmediate(() => peer.destroy());
                }
                callback(err);
            },
        });
    ends.push(make(1), make(0));
    return [ends[0], ends[1]];
}
