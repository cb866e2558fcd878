import { scenario } from './harness';

/**
 * The third process (it runs the simulation) killed with SIGKILL: its devices reconnect through HAProxy to the
 * others and a survivor takes its simulation. tests/server/clusterFailover.test.ts runs the same fault with 1,000
 * devices and checks the lost devices' OFFLINE and /monitor/real; this one checks the suite's invariants.
 */
await scenario('kill', 'one process killed with SIGKILL', async (p) => {
    p.restarted.add(2);
    p.nodes[2].child.kill('SIGKILL');
    return Date.now();
});
