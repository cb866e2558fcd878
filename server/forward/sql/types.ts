/** One device message as a flow sees it. */
export interface FlowMessage {
    /** /sys/{productKey}/{deviceName}/thing/event/property/post, /sys/.../thing/event/{id}/post, ... */
    topic: string;
    productKey: string;
    deviceName: string;
    messageId: string;
    /** ms since epoch, when the platform stored it. */
    timestamp: number;
    /** The message as JSON: e.g. { id, version, method, params: {...}, items: { Temperature: { value, time } } }. */
    payload: unknown;
}

export interface CompiledFlow {
    /** The FROM topic filter as written (with + and #). */
    from: string;
    /** Output column names in SELECT order ('*' contributes the payload's top-level keys at run time: listed as '*'). */
    columns: string[];
    matchesTopic(topic: string): boolean;
    /**
     * The selected row, or undefined when FROM or WHERE does not select this message. Never throws for a message: a
     * path that is missing is NULL, a type mismatch yields NULL (SQL semantics), WHERE with NULL is false.
     */
    run(message: FlowMessage): Record<string, unknown> | undefined;
}

export interface FlowSqlOptions {
    /** The zone timestamp(format) writes times in: the server's TZ, else Asia/Shanghai (as server/config.ts). */
    timeZone?: string;
}

/** Evaluates one compiled expression for a message. */
export type Evaluator = (message: FlowMessage) => unknown;
