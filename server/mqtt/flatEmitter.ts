import { FlatMatcher } from './flatMatcher';

/**
 * The broker's publish/subscribe in one process (aedes' `mq` option): mqemitter's behaviour over a FlatMatcher
 * (flatMatcher.ts) instead of its Qlobber trie, which held 32 Maps per connected device (~7 KB of its ~21 KB heap,
 * docs/performance.md "memory per connection"). mqemitter has no way to be given another matcher, so this is its
 * interface, kept as mqemitter 7 behaves: a listener is called with (message, done), or (done) when it takes one
 * argument; an emit's callback runs once every listener called done; past `concurrency` emits in progress the next
 * ones wait in order; removeListener takes effect on the next turn of the event loop. A cluster keeps mqemitter-redis.
 */

type Done = () => void;
type Listener = ((message: Message, done: Done) => void) | ((done: Done) => void);
type Callback = (err?: Error) => void;

interface Message {
    topic: string;
}

const noop = () => undefined;

export class FlatEmitter {
    readonly matcher = new FlatMatcher();
    closed = false;
    /** Emits whose listeners have not all called done. */
    current = 0;
    private readonly waiting: Array<[Message, Callback]> = [];

    /** `concurrency`: emits in progress at most (0: no bound), as aedes gives mqemitter. */
    constructor(readonly concurrency = 0) {}

    /** Emits waiting for one in progress to end. */
    get length(): number {
        return this.waiting.length;
    }

    on(topic: string, listener: Listener, done?: Done): this {
        this.matcher.add(topic, listener);
        if (done) setImmediate(done);
        return this;
    }

    removeListener(topic: string, listener: Listener, done?: Done): this {
        setImmediate(() => {
            this.matcher.remove(topic, listener);
            done?.();
        });
        return this;
    }

    removeAllListeners(topic: string, done?: Done): this {
        this.matcher.remove(topic);
        if (done) setImmediate(done);
        return this;
    }

    emit(message: Message, callback: Callback = noop): this {
        if (this.closed) {
            callback(new Error('mqemitter is closed'));
            return this;
        }
        if (this.concurrency > 0 && this.current >= this.concurrency) this.waiting.push([message, callback]);
        else this.deliver(message, callback);
        return this;
    }

    close(done: Done): this {
        this.closed = true;
        setImmediate(done);
        return this;
    }

    /** Calls every listener of the message's topic; the callback once all are done, then the next waiting emit. */
    private deliver(message: Message, callback: Callback): void {
        const listeners = this.matcher.match(message.topic) as Listener[];
        this.current++;
        let left = listeners.length;
        const finished = () => {
            callback();
            this.current--;
            const next = this.waiting.shift();
            if (next) this.deliver(...next);
        };
        if (!left) return finished();
        const release = () => {
            if (--left === 0) finished();
        };
        for (const listener of listeners) {
            if (listener.length === 1) (listener as (done: Done) => void).call(this, release);
            else (listener as (message: Message, done: Done) => void).call(this, message, release);
        }
    }
}
