import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { DEFAULT_ROUTE_OPTIONS } from '../../server/forward/service';
import { AMQP_URL, httpSide, PG_URL, postgresSide, rabbitSide } from './forward/destinations';
import type { Bench } from './forward/flows';
import { ingest } from './forward/ingest';
import { latency } from './forward/latency';
import { startDevices, startPlatform } from './forward/processes';
import { throughput } from './forward/throughput';
import type { BenchGroup, Figure } from './run';

/**
 * `npm run bench -- forward`: data forwarding (数据流转, issue 39, docs/forwarding.md) on the platform in its own
 * process (PGlite in a data directory, in its worker thread, as `npm start` runs it; forwarding with its production
 * defaults, batches of 500), DEVICES bench lamps in a process of their own posting QoS 1 property posts through its
 * broker, flows and destinations made through the console's API, and the machine's PostgreSQL, RabbitMQ and an HTTP
 * receiver of the bench's own as destinations, each with its anchor measured in the same run:
 * 1. delivered messages/s to each kind, beside its library writing the same rows straight (forward/throughput.ts);
 * 2. PUBACK → arrival at 1,000 posts/s, p50, p99, max (forward/latency.ts);
 * 3. ingest with 10 flows, and with a flow whose destination is down, beside ingest with none (forward/ingest.ts).
 * A phase lasts FORWARD_BENCH_SECONDS (default 10); FORWARD_BENCH_PHASES picks some; FORWARD_PROFILE=DIR writes the platform's CPU profiles of the
 * drains and the ingest steps there (read them with tests/bench/cpuprofile.ts).
 */

const SECONDS = Number(process.env.FORWARD_BENCH_SECONDS ?? 10);
const DEVICES = Number(process.env.FORWARD_BENCH_DEVICES ?? 1000);
/** FORWARD_BENCH_PHASES=latency,http: only those (default: all, in this order). */
const PHASES = (process.env.FORWARD_BENCH_PHASES ?? 'ingest,latency,postgres,rabbitmq,http').split(',');

/** Which of the destinations' services does not answer a TCP connect within 2 s (a child process: missing() is synchronous). */
function unreachable(): string[] {
    const targets = [
        ['PostgreSQL', new URL(PG_URL)],
        ['RabbitMQ', new URL(AMQP_URL)],
    ] as const;
    const script = `const net = require('node:net');
        const [host, port] = process.argv.slice(1);
        const s = net.connect(Number(port), host, () => process.exit(0));
        s.on('error', () => process.exit(1));
        setTimeout(() => process.exit(1), 2000);`;
    return targets
        .filter(([name, url]) => {
            const port = url.port || (name === 'PostgreSQL' ? '5432' : '5672');
            return spawnSync(process.execPath, ['-e', script, url.hostname, port]).status !== 0;
        })
        .map(([name, url]) => `${name} (${url.hostname}:${url.port})`);
}

async function runAll(): Promise<Figure[]> {
    const [pg, rabbit, http] = await Promise.all([postgresSide(), rabbitSide(), httpSide()]);
    const platform = await startPlatform(DEVICES);
    const devices = await startDevices();
    const b: Bench = {
        platform,
        devices,
        pg,
        rabbit,
        http,
        seconds: SECONDS,
        batch: DEFAULT_ROUTE_OPTIONS.batch,
        profileDir: process.env.FORWARD_PROFILE,
    };
    try {
        await devices.connect(platform.port, platform.devices);
        // Warm-up: connections settled, the thing model cached, the JIT warm.
        await devices.flood(3);
        const figures: Figure[] = [];
        if (PHASES.includes('ingest')) figures.push(...(await ingest(b)));
        if (PHASES.includes('latency')) figures.push(...(await latency(b)));
        for (const kind of ['postgres', 'rabbitmq', 'http'] as const)
            if (PHASES.includes(kind)) figures.push(...(await throughput(b, kind)));
        figures.push({ name: 'loadAverage', value: Number(os.loadavg()[0].toFixed(1)), unit: '' });
        return figures;
    } finally {
        devices.stop();
        await platform.stop();
        await Promise.all([pg.close(), rabbit.close(), http.close()]);
    }
}

const group: BenchGroup = {
    name: 'forward',
    missing() {
        const absent = unreachable();
        if (!absent.length) return undefined;
        return `${absent.join('、')} 不可达（数据流转的目的地需要它们）。请安装并启动：apt-get install -y postgresql rabbitmq-server，或用 FORWARD_PG_URL / FORWARD_AMQP_URL 指向它们。`;
    },
    run: runAll,
};

export default group;
