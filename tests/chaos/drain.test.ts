import { until } from '../server/mqttSupport';
import { scenario } from './harness';

/**
 * The second process stopped with SIGTERM (HAProxy takes it out on its readiness answer, it drains its devices and
 * writes what it acknowledged), then started again on the same ports: the fault ends when HAProxy has it back.
 */
await scenario('drain', 'one process drained with SIGTERM, then restarted', async (p) => {
    const node = p.nodes[1];
    p.restarted.add(1);
    await node.stop();
    p.nodes[1] = await p.startNode(1);
    await until(() => p.haproxy.allUp([1, 2, 3]), 30_000);
    return Date.now();
});
