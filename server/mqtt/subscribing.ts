import type { Client, Subscription } from 'aedes';
import { nameOf, owners, type BrokerState } from './brokerState';
import { topicAllowed } from './topics';

/** aedes' authorizeSubscribe: a device subscribes inside its own topics (and its gateway session's sub-devices'). */
export function authorizeSubscribe(
    state: BrokerState,
    log: (message: string) => void,
    client: Client,
    sub: Subscription,
    done: (err: Error | null, sub: Subscription | null) => void,
) {
    const device = state.devices.get(client);
    if (!device || !topicAllowed(sub.topic, owners(state, client, device))) {
        log(`MQTT 拒绝订阅 ${sub.topic}（${device ? nameOf(device) : '未知客户端'}）`);
        return done(null, null);
    }
    done(null, sub);
}
