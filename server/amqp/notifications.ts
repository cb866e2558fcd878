import pg from 'pg';
import { NOTIFY_CHANNEL } from './queue';

/**
 * LISTEN for the queue's NOTIFY (other processes' new messages, and this one's) on a connection of its own; the
 * service's poll covers the time it is not connected. It reconnects after an error until stopped.
 */

export interface NotificationListener {
    databaseUrl: string;
    /** The groups that got messages. */
    wake: (groupIds: number[]) => void;
    log: (message: string) => void;
    client?: pg.Client;
    stopped: boolean;
}

export async function listenForNotifications(l: NotificationListener): Promise<void> {
    if (l.stopped) return;
    const client = new pg.Client({ connectionString: l.databaseUrl });
    const again = (ms: number) => {
        if (!l.stopped) setTimeout(() => void listenForNotifications(l), ms).unref();
    };
    client.on('notification', (n) => {
        if (n.channel === NOTIFY_CHANNEL && n.payload) l.wake(n.payload.split(',').map(Number));
    });
    client.on('error', () => {
        l.client = undefined;
        client.end().catch(() => undefined);
        again(1000);
    });
    try {
        await client.connect();
        await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
        l.client = client;
        if (l.stopped) await client.end();
    } catch (err) {
        l.log(`AMQP 消息通知连接失败（改为轮询）: ${String(err)}`);
        client.end().catch(() => undefined);
        again(5000);
    }
}

export async function stopListening(l: NotificationListener): Promise<void> {
    l.stopped = true;
    await l.client?.end().catch(() => undefined);
}
