/**
 * The soak's posting schedule, shared by the load generators (fleet.ts), the consumers (consumers.ts) and the bench:
 * the fleet's posts are numbered slots, `rate` a second from `start`; slot g is device g mod N's post number
 * floor(g / N) + 1, so each device posts every N / rate seconds, the devices evenly spread over that period.
 *
 * A post names itself twice: its Alink id `{device}-{seq}-{sent ms}` (what a consumer receives), and the time of its
 * values, `timeBase + seq` (what the store keeps as the row's time), so a stored row, a delivery and an
 * acknowledgement can be matched without the bench holding every post.
 */
export interface Schedule {
    /** Epoch ms of slot 0. */
    start: number;
    devices: number;
    /** Posts per second, the whole fleet. */
    rate: number;
    /** Posts per device in the run. */
    maxSeq: number;
    /** Epoch ms the posts' values are dated from (an hour before the run: inside the store's retention). */
    timeBase: number;
}

export function makeSchedule(devices: number, rate: number, seconds: number, startInMs = 2_000): Schedule {
    const start = Date.now() + startInMs;
    return {
        start,
        devices,
        rate,
        maxSeq: Math.ceil((seconds * rate) / devices),
        timeBase: start - 3_600_000,
    };
}

export const slotTime = (s: Schedule, g: number) => s.start + (g * 1000) / s.rate;
export const slotAt = (s: Schedule, now: number) => Math.floor(((now - s.start) * s.rate) / 1000);
export const slotDevice = (s: Schedule, g: number) => g % s.devices;
export const slotSeq = (s: Schedule, g: number) => Math.floor(g / s.devices) + 1;
/** Where a device's post is in the fleet's bytes of acknowledgements or deliveries. */
export const ackIndex = (s: Schedule, device: number, seq: number) => s.maxSeq * device + seq - 1;

/**
 * One post a second (slot g with g mod rate equal to a value that moves each second, so that it falls on a different
 * device each time) carries ActivePower 199.5, over the soak's firing rules' threshold; the rest stay below 199.
 */
export const isHigh = (s: Schedule, g: number) => g % s.rate === (Math.floor(g / s.rate) * 7919) % s.rate;

/** Slot g's property post as the device writes it, sent at `now`. */
export function payload(s: Schedule, g: number, now: number): string {
    const device = slotDevice(s, g);
    const seq = slotSeq(s, g);
    const time = s.timeBase + seq;
    const power = isHigh(s, g) ? 199.5 : (g % 1990) / 10;
    return (
        `{"id":"${device}-${seq}-${now}","version":"1.0","params":{"Brightness":{"value":${g % 101},"time":${time}},` +
        `"ActivePower":{"value":${power},"time":${time}}},"method":"thing.event.property.post"}`
    );
}

/** A post's id as `payload` wrote it: [device, seq, sent ms], or undefined. */
export function parseId(text: string): [number, number, number] | undefined {
    const m = /"id":"(\d+)-(\d+)-(\d+)"/.exec(text);
    return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}
