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

type Direction = TrafficEvent['direction'];
const DIRECTIONS: readonly Direction[] = ['up', 'down', 'status'];

/** The device an event is about. */
interface Who {
    deviceId: number;
    productKey: string;
    deviceName: string;
}

const WINDOW_S = 60;

export function createTraffic() {
    const emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    const totals = { up: 0, down: 0 };
    /** Per second: [up, down], the newest last. */
    const seconds: Array<{ up: number; down: number; byProduct: Map<string, number>; at: number }> = [];
    let current = { up: 0, down: 0, byProduct: new Map<string, number>() };
    const tick = setInterval(() => {
        // Each second is named by the epoch second it ended in, so a cluster's members' seconds add up by name.
        seconds.push({ ...current, at: Math.round(Date.now() / 1000) });
        if (seconds.length > WINDOW_S) seconds.shift();
        current = { up: 0, down: 0, byProduct: new Map() };
    }, 1000);
    tick.unref();

    return {
        /**
         * An event. The event object is made, and a Buffer payload decoded, only when someone listens to its direction
         * (not on every message: the rules engine, for one, listens to status changes only).
         */
        emit(direction: Direction, who: Who, topic: string, payload: string | Buffer, time = Date.now()) {
            if (direction === 'up') {
                totals.up++;
                current.up++;
                current.byProduct.set(who.productKey, (current.byProduct.get(who.productKey) ?? 0) + 1);
            } else if (direction === 'down') {
                totals.down++;
                current.down++;
            }
            if (emitter.listenerCount(direction)) {
                const event: TrafficEvent = {
                    time,
                    direction,
                    deviceId: who.deviceId,
                    productKey: who.productKey,
                    deviceName: who.deviceName,
                    topic,
                    payload: typeof payload === 'string' ? payload : payload.toString(),
                };
                emitter.emit(direction, event);
            }
        },
        /** Events of these directions (default all) passing `filter`, until the returned function is called. */
        subscribe(
            filter: (e: TrafficEvent) => boolean,
            fn: (e: TrafficEvent) => void,
            directions: readonly Direction[] = DIRECTIONS,
        ): () => void {
            const listener = (e: TrafficEvent) => {
                if (filter(e)) fn(e);
            };
            for (const d of directions) emitter.on(d, listener);
            return () => {
                for (const d of directions) emitter.off(d, listener);
            };
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
                series: seconds.map((s) => ({ up: s.up, down: s.down, at: s.at })),
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
