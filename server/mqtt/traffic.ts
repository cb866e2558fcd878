import { EventEmitter } from 'node:events';

/**
 * Live traffic of the broker, for the monitor screens: every accepted uplink, every platform publish to a device
 * and every status change, as events; and messages per second in and out, overall and per product, over the last
 * minute.
 */

export interface TrafficEvent {
    time: number;
    direction: 'up' | 'down' | 'status';
    deviceId: number;
    productKey: string;
    deviceName: string;
    topic: string;
    payload: string;
}

const WINDOW_S = 60;

export function createTraffic() {
    const emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    const totals = { up: 0, down: 0 };
    /** Per second: [up, down], the newest last. */
    const seconds: Array<{ up: number; down: number; byProduct: Map<string, number> }> = [];
    let current = { up: 0, down: 0, byProduct: new Map<string, number>() };
    const tick = setInterval(() => {
        seconds.push(current);
        if (seconds.length > WINDOW_S) seconds.shift();
        current = { up: 0, down: 0, byProduct: new Map() };
    }, 1000);
    tick.unref();

    return {
        /** An event; a Buffer payload is decoded only when someone listens (not on every message). */
        emit(event: Omit<TrafficEvent, 'payload'> & { payload: string | Buffer }) {
            if (event.direction === 'up') {
                totals.up++;
                current.up++;
                current.byProduct.set(event.productKey, (current.byProduct.get(event.productKey) ?? 0) + 1);
            } else if (event.direction === 'down') {
                totals.down++;
                current.down++;
            }
            if (emitter.listenerCount('event')) {
                const payload = typeof event.payload === 'string' ? event.payload : event.payload.toString();
                emitter.emit('event', { ...event, payload });
            }
        },
        /** Events passing `filter`, until the returned function is called. */
        subscribe(filter: (e: TrafficEvent) => boolean, fn: (e: TrafficEvent) => void): () => void {
            const listener = (e: TrafficEvent) => {
                if (filter(e)) fn(e);
            };
            emitter.on('event', listener);
            return () => emitter.off('event', listener);
        },
        /** Messages per second over the last `window` full seconds (default 5), and the per-second series of the minute. */
        rates(window = 5) {
            const last = seconds.slice(-window);
            const n = Math.max(1, last.length);
            const byProduct = new Map<string, number>();
            for (const s of last) for (const [pk, c] of s.byProduct) byProduct.set(pk, (byProduct.get(pk) ?? 0) + c);
            return {
                upPerSecond: Math.round((last.reduce((a, s) => a + s.up, 0) / n) * 10) / 10,
                downPerSecond: Math.round((last.reduce((a, s) => a + s.down, 0) / n) * 10) / 10,
                byProduct: [...byProduct].map(([productKey, c]) => ({
                    productKey,
                    upPerSecond: Math.round((c / n) * 10) / 10,
                })),
                series: seconds.map((s) => ({ up: s.up, down: s.down })),
                totals: { ...totals },
            };
        },
        close() {
            clearInterval(tick);
            emitter.removeAllListeners();
        },
    };
}

export type Traffic = ReturnType<typeof createTraffic>;
