/** One device message as a flow sees it (until the SQL module lands: then it is server/forward/sql's). */
export interface FlowMessage {
    topic: string;
    productKey: string;
    deviceName: string;
    messageId: string;
    timestamp: number;
    payload: unknown;
}
