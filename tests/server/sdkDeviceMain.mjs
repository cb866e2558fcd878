// A device process running Alibaba's Node device SDK (alibabacloud-iot-device-sdk), unchanged, driven by its parent
// over stdin/stdout in JSON lines (tests/server/sdkProcess.ts). A process of its own because the SDK passes no TLS
// options to mqtt.js: a device trusting the platform's CA over mqtts does so as any Node program does, through
// NODE_EXTRA_CA_CERTS given at its start.
//   in:  {"id": 1, "op": "connect" | "call" | "on" | "granted" | "register", ...}
//   out: {"id": 1, "ok": result} | {"id": 1, "error": "..."} | {"event": "props" | "service" | ..., "on": handle, "data": ...}
import { createRequire } from 'node:module';
import readline from 'node:readline';

const iot = createRequire(import.meta.url)('alibabacloud-iot-device-sdk');

/** The SDK's things by handle: devices, gateways and the sub-devices a gateway logged in. */
const things = new Map();
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

/** The calls whose last argument is the SDK's answer callback. */
const WITH_CALLBACK = new Set([
    'postProps',
    'postEvent',
    'postTags',
    'deleteTags',
    'getConfig',
    'addTopo',
    'getTopo',
    'removeTopo',
    'logout',
    'regiestSubDevice',
]);

function connect({ handle, kind, config }) {
    const thing = kind === 'gateway' ? iot.gateway(config) : iot.device(config);
    things.set(handle, thing);
    return new Promise((resolve, reject) => {
        thing.on('connect', () => resolve(true));
        thing.on('error', (err) => reject(new Error(String(err && (err.message || err)))));
    });
}

/** Calls `name` on the handle's thing; resolves with the SDK's answer (or once sent, for calls without one). */
function call({ handle, name, args = [] }) {
    const thing = things.get(handle);
    if (name === 'login') {
        return new Promise((resolve) => {
            const sub = thing.login(args[0], (res) => resolve(res));
            things.set(args[1], sub);
        });
    }
    if (WITH_CALLBACK.has(name)) return new Promise((resolve) => thing[name](...args, (res) => resolve(res)));
    if (name === 'publish' || name === 'subscribe' || name === 'unsubscribe') {
        return new Promise((resolve, reject) =>
            thing[name](...args, (err, granted) => (err ? reject(err) : resolve(granted ?? true))),
        );
    }
    if (name === 'end') return new Promise((resolve) => thing.end(false, () => resolve(true)));
    thing[name](...args);
    return Promise.resolve(true);
}

/** Registers a listener; what it receives goes to the parent as an event. A service is answered with `reply`. */
function on({ handle, name, service, reply, type }) {
    const thing = things.get(handle);
    if (name === 'onService') {
        thing.onService(service, (request, answer) => {
            send({ event: 'service', on: handle, data: request });
            answer({ id: request.id, code: 200, data: reply ?? {} }, type ?? 'async');
        });
    } else if (name === 'message') {
        thing.on('message', (topic, payload) =>
            send({ event: 'message', on: handle, data: { topic, payload: String(payload) } }),
        );
    } else {
        thing[name]((data) => send({ event: name, on: handle, data }));
    }
    return Promise.resolve(true);
}

/** The QoS the broker grants each topic the SDK subscribes to on connect (128: refused), by subscribing again. */
function granted({ handle }) {
    const m = things.get(handle).model;
    const topics = [
        m.POST_PROPS_REPLY_TOPIC,
        m.ONSET_PROPS_TOPIC,
        m.getWildcardEvenTopic(),
        m.TAG_REPLY_TOPIC,
        m.TAG_DELETE_REPLY_TOPIC,
        m.CONFIG_REPLY_TOPIC,
        m.SHADOW_SUBSCRIBE_TOPIC,
        m.CONFIG_SUBSCRIBE_TOPIC,
        m.CONFIG_SUBSCRIBE_RESP_TOPIC,
        m.ADD_TOPO_REPLY_TOPIC,
        m.DELETE_TOPO_REPLY_TOPIC,
        m.GET_TOPO_REPLY_TOPIC,
        m.LOGIN_REPLY_TOPIC,
        m.LOGOUT_REPLY_TOPIC,
        m.SUBDEVICE_REGISTER_REPLY_TOPIC,
        m.RRPC_REQ_TOPIC,
    ];
    return call({ handle, name: 'subscribe', args: [topics, { qos: 1 }] });
}

const register = ({ config }) => new Promise((resolve) => iot.register(config, (res) => resolve(res)));

const ops = { connect, call, on, granted, register };

readline.createInterface({ input: process.stdin }).on('line', (line) => {
    const message = JSON.parse(line);
    Promise.resolve()
        .then(() => ops[message.op](message))
        .then(
            (ok) => send({ id: message.id, ok: ok === undefined ? null : JSON.parse(JSON.stringify(ok)) }),
            (err) => send({ id: message.id, error: String((err && err.message) || err) }),
        );
});
