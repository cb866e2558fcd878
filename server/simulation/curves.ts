/**
 * Sensible values for the demo products' simulated devices (the live demo, server/seed/live.ts): a random
 * simulation of a demo product (its fixed ProductKey) reports these curves instead of uniform random draws, so the
 * charts look like a place rather than noise, and posts its events only now and then. Each curve is a function of
 * the clock (a day cycle in the server's time zone) and of the time since the simulation started: the
 * excursions that make the demo's rules fire (a passing storm cloud darkens the light sensor, the meeting room
 * overheats) come in the first minute of their cycle, so a first start shows a rule and an alert firing at once.
 */

export interface CurveContext {
    now: number;
    /** When the simulation started (ms): excursions are timed from it. */
    startedAt: number;
    /** The device's place among its simulation's devices (a small phase shift between them). */
    index: number;
}

export interface ProductCurve {
    values(ctx: CurveContext): Record<string, unknown>;
    /** One of the product's events on about one tick in this many (never: undefined). */
    eventOneIn?: number;
}

const MINUTE = 60_000;

/** Hours since local midnight (the server's TZ), fractional. */
function hourOfDay(now: number): number {
    const d = new Date(now);
    return d.getHours() + d.getMinutes() / 60 + d.getSeconds() / 3600;
}

const noise = (amplitude: number) => (Math.random() * 2 - 1) * amplitude;
const round = (v: number, places: number) => Number(v.toFixed(places));
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** Whether `now` falls in the first `lengthMs` of each `cycleMs` since `startedAt`. */
const inExcursion = (ctx: CurveContext, cycleMs: number, lengthMs: number) =>
    (ctx.now - ctx.startedAt) % cycleMs < lengthMs;

/** The light sensor and the lamps agree on it: the lamps are light-controlled (WorkMode 2 光控). */
export const DARK_LUX = 100;

/** Daylight in lux: the sun's arc from 06:00 to 18:00, darkened for 45 s every 10 minutes by a passing storm cloud. */
export function illuminance(ctx: CurveContext): number {
    const h = hourOfDay(ctx.now);
    const sun = h > 6 && h < 18 ? Math.sin((Math.PI * (h - 6)) / 12) : 0;
    const cloud = inExcursion(ctx, 10 * MINUTE, 45_000) ? 0.001 : 0.75 + 0.2 * Math.sin(ctx.now / (7 * MINUTE));
    return Math.round(clamp(5 + 60_000 * sun * cloud + noise(3), 0, 100_000));
}

/** Room temperature: 22-27 °C over the day, and 40 s of overheating (32 °C or more) every 20 minutes. */
export function temperature(ctx: CurveContext): number {
    const h = hourOfDay(ctx.now);
    const day = 24.5 + 2.5 * Math.sin((2 * Math.PI * (h - 9)) / 24);
    const hot = inExcursion(ctx, 20 * MINUTE, 40_000) ? Math.max(0, 32 - day) : 0;
    return round(day + hot + noise(0.2) + ctx.index * 0.3, 1);
}

/** Which demo product a curve belongs to: keyed by the demo's fixed ProductKeys (server/seed/demo.ts). */
export const DEMO_CURVES: Record<string, ProductCurve> = {
    // 智能路灯_L1: on when it is dark, dimmed a little at random, drawing power for its brightness.
    a1LampDemo7: {
        eventOneIn: 200,
        values(ctx) {
            const on = illuminance(ctx) < DARK_LUX;
            const brightness = on ? Math.round(clamp(85 + noise(5), 0, 100)) : 0;
            return {
                LightSwitch: on ? 1 : 0,
                Brightness: brightness,
                ActivePower: round(on ? brightness * 1.5 + noise(2) : 0.4, 1),
                // Energy grows with time (about 1 kWh a day on average).
                TotalEnergy: round(2_000 + (ctx.now / 86_400_000 - 20_000) * 1.1, 2),
                WorkMode: 2,
                FirmwareVersion: 'V2.1.0',
            };
        },
    },
    // 智能井盖_M2: closed and level; the battery drains by a percent a month; now and then someone lifts it.
    a1CoverDem2: {
        eventOneIn: 120,
        values(ctx) {
            return {
                CoverState: 0,
                TiltAngle: round(clamp(1.2 + ctx.index * 0.4 + noise(0.3), 0, 90), 1),
                BatteryLevel: clamp(Math.round(90 - ((ctx.now / 86_400_000) % 30) / 3) - ctx.index * 7, 0, 100),
            };
        },
    },
    // 空气质量监测站: the light sensor of the lamps' scene rule, and PM2.5 higher in the rush hours.
    a1AirQDemo3: {
        values(ctx) {
            const h = hourOfDay(ctx.now);
            const rush = Math.exp(-((h - 8) ** 2) / 2) + Math.exp(-((h - 18) ** 2) / 2);
            return { Illuminance: illuminance(ctx), PM25: Math.round(clamp(28 + 30 * rush + noise(4), 0, 1000)) };
        },
    },
    // 边缘网关_G1: what an edge gateway reports about itself (the edge instance's 监控 tab).
    a1EdgeGwDm4: {
        values(ctx) {
            const wave = Math.sin(ctx.now / (5 * MINUTE));
            return {
                cpuUsage: round(clamp(22 + 8 * wave + noise(3), 0, 100), 1),
                memUsage: round(clamp(46 + 2 * wave + noise(0.5), 0, 100), 1),
                // Where the seeded history leaves it (server/seed/telemetry.ts), filling slowly.
                diskUsage: round(43.2 + ((ctx.now / 86_400_000) % 10) * 0.05, 1),
                msgUp: Math.round(120 + 20 * wave + noise(8)),
                msgDown: Math.round(12 + noise(3)),
            };
        },
    },
    // 温湿度传感器_T1: the alert rule's temperature; humidity falls as the room warms.
    a1ThSensDm6: {
        values(ctx) {
            const t = temperature(ctx);
            return {
                Temperature: t,
                Humidity: round(clamp(70 - t, 0, 100) + noise(1), 1),
                BatteryLevel: 87,
            };
        },
    },
};

export function curveOf(productKey: string): ProductCurve | undefined {
    return DEMO_CURVES[productKey];
}
