import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { FlatEmitter } from '../../server/mqtt/flatEmitter';
import { FlatMatcher, type TopicMatcher } from '../../server/mqtt/flatMatcher';

/**
 * The broker's flat topic matcher (server/mqtt/flatMatcher.ts) answers as mqemitter's Qlobber does for MQTT filters,
 * and holds nothing of a filter once it is removed.
 */

// Qlobber as mqemitter makes it (aedes' dependency, not the project's own): the reference answers.
const require = createRequire(import.meta.resolve('mqemitter'));
const { Qlobber } = require('qlobber') as { Qlobber: new (options: object) => TopicMatcher };
const qlobber = () => new Qlobber({ match_empty_levels: true, separator: '/', wildcard_one: '+', wildcard_some: '#' });

const FILTERS = [
    '/sys/a1/dev1/thing/event/property/post_reply',
    '/sys/a1/dev1/thing/event/+/post_reply',
    '/sys/a1/dev1/rrpc/request/+',
    '/sys/a1/dev2/rrpc/request/+',
    '/ota/device/upgrade/a1/dev1',
    '/sys/#',
    '#',
    '+',
    '+/+',
    '/+',
    'a/#',
    'a/+/c',
    'a//c',
    '$SYS/+/new/clients',
    '/shadow/get/a1/dev1',
];
const TOPICS = [
    '/sys/a1/dev1/thing/event/property/post_reply',
    '/sys/a1/dev1/thing/event/alarm/post_reply',
    '/sys/a1/dev1/thing/event//post_reply',
    '/sys/a1/dev1/rrpc/request/123',
    '/sys/a1/dev1/rrpc/request/',
    '/sys/a1/dev2/rrpc/request/9',
    '/sys/a1/dev1/rrpc/request/1/2',
    '/ota/device/upgrade/a1/dev1',
    '/ota/device/upgrade/a1/dev2',
    '/sys',
    '/',
    '',
    'a',
    'a/b',
    'a/b/c',
    'a//c',
    '$SYS/x/new/clients',
    '/shadow/get/a1/dev1',
];

const sorted = (values: unknown[]) => values.map(String).sort();

describe('FlatMatcher', () => {
    it('matches every topic as Qlobber does, with the same filters added', () => {
        const flat = new FlatMatcher();
        const reference = qlobber();
        for (const f of FILTERS) {
            flat.add(f, f);
            reference.add(f, f);
        }
        for (const topic of TOPICS)
            expect([topic, sorted(flat.match(topic))]).toEqual([topic, sorted(reference.match(topic))]);
    });

    it('keeps a filter added twice until it is removed twice, as Qlobber does', () => {
        const flat = new FlatMatcher();
        flat.add('a/+', 1);
        flat.add('a/+', 1);
        flat.remove('a/+', 1);
        expect(flat.match('a/b')).toEqual([1]);
        flat.remove('a/+', 1);
        expect(flat.match('a/b')).toEqual([]);
    });

    it('holds nothing once every filter is removed', () => {
        const flat = new FlatMatcher();
        FILTERS.forEach((f, i) => flat.add(f, i));
        FILTERS.forEach((f, i) => expect(flat.remove(f, i)).toBe(true));
        expect(flat.exact.size).toBe(0);
        expect(flat.byPrefix.size).toBe(0);
    });

    it('removes a filter with every value under it when no value is named', () => {
        const flat = new FlatMatcher();
        flat.add('a/b', 1);
        flat.add('a/b', 2);
        flat.add('a/+', 3);
        flat.add('a/+', 4);
        flat.remove('a/b');
        flat.remove('a/+');
        expect(flat.match('a/b')).toEqual([]);
        expect(flat.exact.size + flat.byPrefix.size).toBe(0);
    });
});

/** mqemitter as aedes makes it, the reference for the emitter's behaviour. */
const MQEmitter = createRequire(import.meta.url)('mqemitter') as (opts: object) => FlatEmitter;

describe.each([
    ['mqemitter', (concurrency: number) => MQEmitter({ concurrency, matchEmptyLevels: true })],
    ['FlatEmitter', (concurrency: number) => new FlatEmitter(concurrency)],
])('the broker emitter (%s): what aedes relies on', (_name, make) => {
    const tick = () => new Promise((r) => setImmediate(r));

    it('calls every matching listener with the message, and the emit callback once all of them are done', async () => {
        const e = make(0);
        const calls: string[] = [];
        const dones: Array<() => void> = [];
        e.on('a/+', (m: { topic: string }, done: () => void) => (calls.push(`+ ${m.topic}`), dones.push(done)));
        e.on('a/#', (m: { topic: string }, done: () => void) => (calls.push(`# ${m.topic}`), dones.push(done)));
        e.on('b', (_m: unknown, done: () => void) => (calls.push('b'), done()));
        let emitted = 0;
        e.emit({ topic: 'a/x' }, () => emitted++);
        expect(calls.sort()).toEqual(['# a/x', '+ a/x']);
        dones[0]();
        expect(emitted).toBe(0);
        dones[1]();
        expect(emitted).toBe(1);
        e.emit({ topic: 'nobody' }, () => emitted++);
        expect(emitted).toBe(2);
    });

    it('keeps emits past its concurrency waiting, in order, until one in progress is done', () => {
        const e = make(1);
        const seen: string[] = [];
        const dones: Array<() => void> = [];
        e.on('t/+', (m: { topic: string }, done: () => void) => (seen.push(m.topic), dones.push(done)));
        e.emit({ topic: 't/1' });
        e.emit({ topic: 't/2' });
        e.emit({ topic: 't/3' });
        expect(seen).toEqual(['t/1']);
        dones.shift()!();
        expect(seen).toEqual(['t/1', 't/2']);
        dones.shift()!();
        expect(seen).toEqual(['t/1', 't/2', 't/3']);
    });

    it('removes a listener on the next turn, and refuses an emit once closed', async () => {
        const e = make(0);
        let called = 0;
        const listener = (_m: unknown, done: () => void) => (called++, done());
        e.on('r', listener);
        let removed = false;
        e.removeListener('r', listener, () => (removed = true));
        e.emit({ topic: 'r' });
        expect(called).toBe(1);
        await tick();
        expect(removed).toBe(true);
        e.emit({ topic: 'r' });
        expect(called).toBe(1);
        await new Promise((r) => e.close(() => r(undefined)));
        const refused = await new Promise<Error | undefined>((r) => e.emit({ topic: 'r' }, r));
        expect(refused?.message).toBe('mqemitter is closed');
    });
});
