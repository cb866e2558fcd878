import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { SaslOutcomeWatch } from '../../server/mqtt/amqpFraming';
import {
    AMQP_HEADER,
    amqpFrames,
    amqpStream,
    type HttpCase,
    httpCase,
    int,
    mqttConnect,
    mqttPacketAfterConnect,
    mqttStream,
    mutate,
    pick,
    type Rng,
    rheaFrames,
    SASL_HEADER,
    saslInit,
    split,
} from './fuzzSupport';

/**
 * Runs generated cases (fuzzSupport.ts) against a server's listeners: many cases on one connection where the protocol
 * allows (after a valid sign-in, until the server closes it; the cases not written then go on the next connection),
 * one stream per connection for the sign-in itself. Answers what the checks need: cases written, connections, the
 * longest a connection took to close once we had ended it (a hang), and HTTP answers of 500 and above.
 */

export interface Target {
    port: number;
    /** The CA and name to verify the server by: a TLS listener. */
    tls?: { ca: string; servername: string };
}

export interface RunFigures {
    cases: number;
    connections: number;
    /** The longest from our end of a connection to its close (ms). */
    slowestCloseMs: number;
    /** Connections not closed within the bound after we ended them. */
    hung: number;
}

/** The share of connections made to the TLS listener. */
const TLS_SHARE = 0.1;
/** The share of generated cases that are mutated (the rest are valid: they keep a connection for the next case). */
const MUTATED_SHARE = 0.15;

/** The longest a connection may take to close once we have ended it. */
export const CLOSE_BOUND_MS = 10_000;

function open(target: Target): Promise<Socket> {
    return new Promise((resolve, reject) => {
        const socket = target.tls
            ? tlsConnect({ port: target.port, host: '127.0.0.1', ca: target.tls.ca, servername: target.tls.servername })
            : netConnect(target.port, '127.0.0.1');
        socket.once(target.tls ? 'secureConnect' : 'connect', () => resolve(socket));
        socket.once('error', reject);
    });
}

const turn = () => new Promise((r) => setImmediate(r));

/** A sign-in written first, and the server's answer that says it is done (true) or refused (false). */
export interface Prelude {
    bytes: Buffer;
    answered(incoming: Buffer): boolean | undefined;
    /** Written once answered, before the cases (AMQP's header and open after the SASL outcome). */
    then?: Buffer;
}

/**
 * One connection: the prelude (waiting for its answer), then the cases until the server closes it; answers how many
 * cases were written. The connection is then ended by us and must close within CLOSE_BOUND_MS.
 */
async function session(target: Target, prelude: Prelude | undefined, cases: Buffer[][], figures: RunFigures) {
    const socket = await open(target);
    figures.connections++;
    let closed = false;
    const closedAt = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    void closedAt.then(() => (closed = true));
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    let written = 0;
    if (prelude) {
        const ok = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), 5_000);
            socket.on('data', (chunk: Buffer) => {
                const answer = prelude.answered(chunk);
                if (answer !== undefined) {
                    clearTimeout(timer);
                    resolve(answer);
                }
            });
            void closedAt.then(() => resolve(false));
            socket.write(prelude.bytes);
        });
        if (!ok) cases = [];
        else if (prelude.then) socket.write(prelude.then);
    }
    for (const chunks of cases) {
        if (closed) break;
        for (const chunk of chunks) if (!closed) socket.write(chunk);
        written++;
        await turn();
    }
    const endedAt = Date.now();
    socket.end();
    const timer = setTimeout(() => {
        figures.hung++;
        socket.destroy();
    }, CLOSE_BOUND_MS);
    await closedAt;
    clearTimeout(timer);
    figures.slowestCloseMs = Math.max(figures.slowestCloseMs, Date.now() - endedAt);
    figures.cases += written;
    return written;
}

/**
 * Runs `total` cases: `signInShare` of them each a whole generated sign-in stream on its own connection, the rest in
 * batches after a valid sign-in (`prelude`), `concurrency` connections at a time.
 */
async function runCases(
    targets: Target[],
    total: number,
    concurrency: number,
    make: {
        signInStream(): Buffer[];
        /** A case for worker `w`'s connection (each worker signs in as its own device or consumer). */
        afterSignIn(w: number): Buffer[];
        prelude(target: Target, w: number): Prelude;
        signInShare: number;
    },
    rng: Rng,
): Promise<RunFigures> {
    const figures: RunFigures = { cases: 0, connections: 0, slowestCloseMs: 0, hung: 0 };
    let signIns = Math.round(total * make.signInShare);
    let left = total - signIns;
    const worker = async (w: number) => {
        let carried: Buffer[][] = [];
        while (left > 0 || carried.length || signIns > 0) {
            // TLS listeners (the later targets) get a share of the connections: a handshake costs more than a case.
            const target = rng() < TLS_SHARE ? targets[targets.length - 1] : targets[0];
            if (signIns > 0 && (rng() < 0.5 || (!left && !carried.length))) {
                signIns--;
                await session(target, undefined, [make.signInStream()], figures);
                continue;
            }
            if (!left && !carried.length) continue;
            const batch = carried;
            carried = [];
            while (batch.length < 50 && left > 0) {
                batch.push(make.afterSignIn(w));
                left--;
            }
            const written = await session(target, make.prelude(target, w), batch, figures);
            carried = batch.slice(Math.max(written, 1));
        }
    };
    await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
    return figures;
}

// MQTT

export interface MqttDevice {
    /** Signs in over this target (securemode differs between TLS and plain). */
    credentials(target: Target): { clientId: string; username: string; password: string };
    productKey: string;
    deviceName: string;
}

/** Answers the CONNACK's return code once its 4 bytes are in (0: signed in). */
function connackAnswer(): Prelude['answered'] {
    let head = Buffer.alloc(0);
    return (chunk) => {
        head = Buffer.concat([head, chunk]);
        if (head.length < 4) return undefined;
        return head[0] === 0x20 && head[3] === 0;
    };
}

/** One connection per device at a time: a device signing in again takes over its other connection. */
export function fuzzMqtt(targets: Target[], devices: MqttDevice[], total: number, rng: Rng) {
    const topics = devices.map((d) => `/sys/${d.productKey}/${d.deviceName}/thing`);
    return runCases(
        targets,
        total,
        devices.length,
        {
            signInShare: 0.05,
            signInStream: () => split(rng, mqttStream(rng).bytes),
            prelude: (target, w) => ({
                bytes: mqttConnect(4, devices[w].credentials(target)),
                answered: connackAnswer(),
            }),
            afterSignIn: (w) => {
                const own = `${topics[w]}/event/property/post`;
                const set = `${topics[w]}/service/property/set`;
                const packet = mqttPacketAfterConnect(rng, 4, rng() < 0.95 ? own : 'fuzz/topic', set);
                return split(rng, rng() < MUTATED_SHARE ? mutate(rng, packet) : packet);
            },
        },
        rng,
    );
}

// AMQP

export interface AmqpConsumer {
    username: string;
    password: string;
}

/** Answers the server's SASL outcome once it is in (true: OK). */
function outcomeAnswer(): Prelude['answered'] {
    const watch = new SaslOutcomeWatch();
    return (chunk) => {
        const code = watch.write(chunk);
        return code === undefined ? undefined : code === 0;
    };
}

export function fuzzAmqp(targets: Target[], consumer: () => AmqpConsumer, total: number, rng: Rng, concurrency = 6) {
    return runCases(
        targets,
        total,
        concurrency,
        {
            signInShare: 0.05,
            signInStream: () => {
                const { sasl, after } = amqpStream(rng, rng() < 0.5 ? consumer() : undefined);
                return split(rng, Buffer.concat([sasl, after]));
            },
            prelude: () => {
                const c = consumer();
                return {
                    bytes: Buffer.concat([SASL_HEADER, saslInit(c.username, c.password)]),
                    answered: outcomeAnswer(),
                    then: Buffer.concat([AMQP_HEADER, amqpOpen()]),
                };
            },
            afterSignIn: () => {
                // A session's frames (begin, flow, an empty frame, and in a quarter an attach: a consumer that claims
                // from the database), one maybe mutated.
                const [, begin, attach, flow, empty] = amqpFrames(rng);
                const frames = rng() < 0.25 ? [begin, attach, flow, empty] : [begin, flow, empty];
                if (rng() < MUTATED_SHARE) {
                    const at = int(rng, frames.length);
                    frames[at] = mutate(rng, frames[at], pick(rng, frames));
                }
                return split(rng, Buffer.concat(frames));
            },
        },
        rng,
    );
}

/** A well-formed AMQP open. */
export const amqpOpen = () =>
    rheaFrames.write_frame(rheaFrames.amqp_frame(0, rheaFrames.open({ container_id: 'fuzz' })));

// HTTP

export interface HttpTarget extends Target {
    cookie: string;
}

export interface HttpFigures {
    cases: number;
    /** Answers of 500 and above: the route and the body's first bytes. */
    serverErrors: Array<{ path: string; status: number; body: string; answer: string }>;
    statuses: Record<number, number>;
    slowestMs: number;
}

function send(target: HttpTarget, agent: HttpAgent, c: HttpCase): Promise<{ status: number; answer: string }> {
    return new Promise((resolve, reject) => {
        const body = typeof c.body === 'string' ? Buffer.from(c.body) : c.body;
        const req = (target.tls ? httpsRequest : httpRequest)(
            {
                host: '127.0.0.1',
                port: target.port,
                path: c.path,
                method: c.method,
                agent,
                ca: target.tls?.ca,
                servername: target.tls?.servername,
                headers: { ...c.headers, cookie: target.cookie, 'content-length': body.length },
                timeout: CLOSE_BOUND_MS,
            },
            (res) => {
                const parts: Buffer[] = [];
                res.on('data', (d: Buffer) => parts.push(d));
                res.on('end', () => resolve({ status: res.statusCode ?? 0, answer: Buffer.concat(parts).toString() }));
                res.on('error', reject);
            },
        );
        req.on('timeout', () => req.destroy(new Error(`no answer within ${CLOSE_BOUND_MS} ms: ${c.path}`)));
        req.on('error', reject);
        req.end(body);
    });
}

/** A signed-in GET of `path` on the target: its status. */
export async function getStatus(target: HttpTarget, path: string): Promise<number> {
    const agent = target.tls ? new HttpsAgent({ ca: target.tls.ca }) : new HttpAgent();
    const { status } = await send(target, agent, { method: 'GET', path, headers: {}, body: '' });
    agent.destroy();
    return status;
}

export async function fuzzHttp(
    targets: HttpTarget[],
    routes: Array<{ path: string; fields: string[] }>,
    total: number,
    rng: Rng,
    concurrency = 6,
): Promise<HttpFigures> {
    const figures: HttpFigures = { cases: 0, serverErrors: [], statuses: {}, slowestMs: 0 };
    const agents = targets.map((t) =>
        t.tls ? new HttpsAgent({ keepAlive: true, ca: t.tls.ca }) : new HttpAgent({ keepAlive: true }),
    );
    let left = total;
    const worker = async () => {
        while (left-- > 0) {
            const i = int(rng, targets.length);
            const route = pick(rng, routes);
            const c = httpCase(rng, route.path, route.fields);
            const started = Date.now();
            const { status, answer } = await send(targets[i], agents[i], c);
            figures.slowestMs = Math.max(figures.slowestMs, Date.now() - started);
            figures.cases++;
            figures.statuses[status] = (figures.statuses[status] ?? 0) + 1;
            if (status >= 500) {
                const body = Buffer.from(c.body).subarray(0, 200).toString();
                figures.serverErrors.push({ path: c.path, status, body, answer: answer.slice(0, 200) });
            }
        }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    for (const a of agents) a.destroy();
    return figures;
}
