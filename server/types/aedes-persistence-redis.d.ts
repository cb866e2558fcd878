declare module 'aedes-persistence-redis' {
    /** aedes-persistence-redis 11: a callback persistence for aedes 1.x; takes ioredis options. */
    const persistence: (options?: Record<string, unknown>) => unknown;
    export default persistence;
}
